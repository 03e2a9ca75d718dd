import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `parley` is a command people can type, exactly as the docs say: `npx parley …` from the app package (its
 * `bin`), and `npx -y pnpm@10 parley …` in a clone (the root script). Each test spawns the documented command
 * line itself, through a shell, with the settings in the environment.
 */

const APP = fileURLToPath(new URL('../..', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(APP, 'package.json'), 'utf8')) as { version: string })
  .version;

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'parley-command-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** Runs `command` through the shell in `cwd`; resolves with its exit code and output. */
function sh(command: string, cwd: string, env: Record<string, string> = {}) {
  const child = spawn('sh', ['-c', command], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? folder,
      // The tests run on what turbo built before them: the root script does not build again.
      PARLEY_SKIP_BUILD: '1',
      PLUGINS: 'none',
      DATA_DIR: join(folder, `data-${Math.random().toString(36).slice(2)}`),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('the parley command, as documented', () => {
  it('`npx parley --version` in apps/server runs the app’s bin', async () => {
    const { code, stdout } = await sh('npx parley --version', APP);
    expect(stdout.trim()).toBe(`parley ${VERSION}`);
    expect(code).toBe(0);
  }, 60_000);

  it('`npx parley doctor` in apps/server checks the setup and exits 0 when nothing fails', async () => {
    const { code, stdout, stderr } = await sh('npx parley doctor', APP, { PORT: '0' });
    expect(stdout, stderr).toContain('ok   PLUGINS: 0 loaded (none)');
    expect(stdout).toContain('All checks passed.');
    expect(code).toBe(0);
  }, 60_000);

  it('`npx parley reply` without an id is a usage error, not a missing command', async () => {
    const { code, stderr } = await sh('npx parley reply', APP);
    expect(stderr).toMatch(/^parley: /);
    expect(stderr).not.toMatch(/not found|could not determine executable/i);
    expect(code).toBe(2);
  }, 60_000);

  it('`npx -y pnpm@10 parley doctor` at the root of a clone runs the same command', async () => {
    const { code, stdout, stderr } = await sh('npx -y pnpm@10 parley doctor', ROOT, { PORT: '0' });
    expect(stdout, stderr).toContain('ok   PLUGINS: 0 loaded (none)');
    expect(stdout).toContain('All checks passed.');
    expect(code).toBe(0);
  }, 120_000);
});
