import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';

const PAGE = fileURLToPath(new URL('../../../../docs/clients.md', import.meta.url));
/** Where `node -e` resolves the example's imports: this package has `@a2a-js/sdk`. */
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const DOCUMENTED_BASE = 'http://127.0.0.1:3000';
const run = promisify(execFile);

let test: TestServer;

beforeAll(async () => {
  // The settings the page says it was written against: the token, the built-in Eliza, the offline responder.
  test = await startTestServer({ authToken: 'change-me' });
});
afterAll(async () => {
  await test?.[Symbol.asyncDispose]();
});

/** The blocks of the page's A2A section, in `language`, aimed at the test server. */
async function blocks(language: string): Promise<string[]> {
  const text = await readFile(PAGE, 'utf8');
  const section = /## A2A[^\n]*\n([\s\S]*?)(?=\n## |$)/.exec(text)?.[1];
  if (!section) throw new Error('docs/clients.md has no A2A section');
  const fence = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g');
  return [...section.matchAll(fence)].map((match) =>
    match[1]!.replaceAll(DOCUMENTED_BASE, test.url),
  );
}

describe('docs/clients.md, A2A', () => {
  it('fetches the card as written', async () => {
    const [block] = await blocks('sh');
    const { stdout } = await run('sh', ['-c', block!], { timeout: 30_000 });
    expect(JSON.parse(stdout)).toMatchObject({
      name: 'Eliza',
      supportedInterfaces: [{ protocolBinding: 'JSONRPC' }],
    });
  });

  it('runs the SDK client example as written: send, stream, get', async () => {
    const [example] = await blocks('mjs');
    const { stdout } = await run('node', ['--input-type=module', '-e', example!], {
      cwd: PACKAGE_DIR,
      timeout: 60_000,
    });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^TASK_STATE_COMPLETED \S/);
    expect(lines[1]!.trim()).not.toBe('');
    expect(lines[2]).toBe('TASK_STATE_COMPLETED');
  });
});
