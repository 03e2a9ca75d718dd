import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputOf, spawnParley } from '../test/parley-child';

/**
 * An elizaOS character's `plugins` through the built CLI: doctor says what became of each recognised plugin, and
 * a plugin that is neither recognised nor installed stops start with the command that installs it.
 */

const SECRET = 'sk-proj-doctor-never-prints-this-0123456789';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-elizaos-character-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

async function characterFile(character: object): Promise<string> {
  const path = join(cwd, `${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify(character));
  return path;
}

function run(args: string[]) {
  return outputOf(
    spawnParley(cwd, args, {
      PORT: '0',
      LOG_FORMAT: 'json',
      DATA_DIR: join(cwd, `data-${Math.random().toString(36).slice(2)}`),
    }),
  );
}

describe("an elizaOS character's plugins list", () => {
  it('doctor: one ok line per recognised plugin, the model it maps to, and never the key', async () => {
    const path = await characterFile({
      name: 'Eliza',
      plugins: ['@elizaos/plugin-sql', '@elizaos/plugin-openai', '@elizaos/plugin-bootstrap'],
      settings: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', secrets: { OPENAI_API_KEY: SECRET } },
    });
    const { stdout } = await run(['doctor', '--character', path]);
    expect(stdout).toContain(
      "ok   character Eliza: @elizaos/plugin-sql is not loaded; Parley's own storage",
    );
    expect(stdout).toContain(
      "ok   character Eliza: @elizaos/plugin-bootstrap is not loaded; Parley's agent loop",
    );
    expect(stdout).toContain(
      "ok   character Eliza: @elizaos/plugin-openai is Parley's OpenAI-compatible model: MODEL gpt-4o",
    );
    expect(stdout).not.toContain('was not found');
    expect(stdout).not.toContain(SECRET);
  }, 60_000);

  it('start: a plugin neither recognised nor installed stops it with the npm install line', async () => {
    const path = await characterFile({
      name: 'Eliza',
      plugins: ['@elizaos/plugin-sql', '@elizaos/plugin-discord', '@elizaos/plugin-bootstrap'],
    });
    const { code, stderr } = await run(['--character', path]);
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^parley: character Eliza: plugin "@elizaos\/plugin-discord" was not found\. .*Install it where the app runs \(`npm install @elizaos\/plugin-discord` in /,
    );
    // The recognised ones are not what stopped it.
    expect(stderr).not.toContain('plugin-sql" was not found');
  }, 60_000);
});
