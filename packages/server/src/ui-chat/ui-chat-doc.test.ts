import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';

const PAGE = fileURLToPath(new URL('../../../../docs/clients.md', import.meta.url));
/** Where `node -e` resolves the example's imports: this package has `ai`. */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const DOCUMENTED_BASE = 'http://127.0.0.1:3000';
const run = promisify(execFile);

let test: TestServer;

beforeAll(async () => {
  test = await startTestServer({ authToken: 'change-me' });
});
afterAll(async () => {
  await test?.[Symbol.asyncDispose]();
});

/** The blocks of the page's UI message stream section, in `language`, aimed at the test server. */
async function blocks(language: string): Promise<string[]> {
  const text = await readFile(PAGE, 'utf8');
  const section = text
    .split(/^## /m)
    .find((part) => part.startsWith("The AI SDK's UI message stream"));
  if (!section) throw new Error('docs/clients.md has no UI message stream section');
  const fence = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g');
  return [...section.matchAll(fence)].map((match) =>
    match[1]!.replaceAll(DOCUMENTED_BASE, test.url),
  );
}

describe("docs/clients.md, the UI message stream's examples", () => {
  it('runs the curl block as written: a UI message stream of the agent’s answer', async () => {
    const [block] = await blocks('sh');
    expect(block).toContain('/api/messaging/ui-chat/');
    const { stdout } = await run('sh', ['-c', block!], { timeout: 30_000 });
    expect(stdout).toContain('data: {"type":"start","messageId":');
    expect(stdout).toContain('"type":"text-delta"');
    expect(stdout).toContain('"type":"finish"');
    expect(stdout.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('runs the Node example as written: the answer’s text, then its channel', async () => {
    const [example] = await blocks('mjs');
    const { stdout } = await run('node', ['--input-type=module', '-e', example!], {
      cwd: PACKAGE_DIR,
      timeout: 60_000,
    });
    const [text, channelId] = stdout.trim().split('\n');
    expect(text?.trim()).not.toBe('');
    expect(channelId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
