import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnParley, untilListening, type ParleyChild } from '../test/parley-child';

/** What the example plugins warn about when their settings are unset. */
const EXAMPLE_WARNINGS = [
  'WEBHOOK_API_KEY is not set',
  'GITHUB_WEBHOOK_SECRET is not set',
  'NOTIFICATION_CHANNEL_ID is not a UUID',
];

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-example-warnings-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

const running: ParleyChild[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** Starts the built app with `env` and `args` and resolves with the messages it logged up to listening. */
async function startupMessages(env: Record<string, string>, args: string[] = []) {
  const child = spawnParley(cwd, args, {
    PORT: '0',
    LOG_FORMAT: 'json',
    DATA_DIR: join(cwd, `data-${Math.random().toString(36).slice(2)}`),
    ...env,
  });
  running.push(child);
  const { lines } = await untilListening(child);
  return lines.map((line) => `${String(line.level)} ${String(line.msg)}`);
}

const warned = (messages: string[], text: string) =>
  messages.some((message) => message.startsWith('40 ') && message.includes(text));

describe("the example plugins' warnings about their own settings", () => {
  it('a default start (PLUGINS unset) loads every example and warns about none of their settings', async () => {
    const messages = await startupMessages({});
    for (const text of EXAMPLE_WARNINGS) expect(warned(messages, text), text).toBe(false);
    // The examples are loaded all the same.
    expect(messages.filter((message) => message.includes('plugin loaded')).length).toBeGreaterThan(
      0,
    );
  }, 60_000);

  it('PLUGINS naming an example asks for it: its warnings are logged, and only its own', async () => {
    const messages = await startupMessages({ PLUGINS: 'webhook' });
    expect(warned(messages, 'WEBHOOK_API_KEY is not set')).toBe(true);
    expect(warned(messages, 'GITHUB_WEBHOOK_SECRET is not set')).toBe(false);
  }, 60_000);

  it('a character that lists an example by name hears its warnings, on a default start', async () => {
    const character = join(cwd, 'gh.json');
    await writeFile(character, JSON.stringify({ name: 'Gh', plugins: ['github'] }));
    const messages = await startupMessages({}, ['--character', character]);
    expect(warned(messages, 'GITHUB_WEBHOOK_SECRET is not set')).toBe(true);
    expect(warned(messages, 'NOTIFICATION_CHANNEL_ID is not a UUID')).toBe(true);
    // The character does not list webhook, so no agent has it: nothing about its key.
    expect(warned(messages, 'WEBHOOK_API_KEY is not set')).toBe(false);
  }, 60_000);
});
