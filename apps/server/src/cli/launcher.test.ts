import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The repository's `start` script (root package.json), run on what turbo built before these tests. */
const LAUNCHER = fileURLToPath(new URL('../../bin/start.mjs', import.meta.url));

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-launcher-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

/**
 * Runs the launcher under a stand-in for npx: a process that, like npx, does not forward signals. Resolves once
 * the server listens, with the stand-in and a promise of the end of the server's output (every holder of the
 * pipe gone, i.e. the server has exited).
 */
async function launchUnderStandIn() {
  const standIn = spawn(
    process.execPath,
    [
      '-e',
      `require('node:child_process').spawn(process.execPath, [${JSON.stringify(LAUNCHER)}], { stdio: 'inherit' });
       setInterval(() => {}, 1000);`,
    ],
    {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        PARLEY_SKIP_BUILD: '1',
        PORT: '0',
        PLUGINS: 'none',
        LOG_FORMAT: 'json',
        DATA_DIR: join(cwd, `data-${Math.random().toString(36).slice(2)}`),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines: Record<string, unknown>[] = [];
  const outputEnded = new Promise<void>((resolve) => standIn.stdout.once('close', resolve));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: standIn.stdout }).on('line', (line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      lines.push(record);
      if (typeof record.chat === 'string') resolve();
    });
    void outputEnded.then(() => reject(new Error('the server ended before listening')));
  });
  return { standIn, lines, outputEnded };
}

describe('the start script (apps/server/bin/start.mjs)', () => {
  it('stops the server gracefully when the process that started it is killed', async () => {
    const { standIn, lines, outputEnded } = await launchUnderStandIn();
    // npx dies on SIGTERM without passing it on; SIGKILL of the stand-in is the same for the launcher.
    standIn.kill('SIGKILL');
    await outputEnded;
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['stopped']));
  });
});
