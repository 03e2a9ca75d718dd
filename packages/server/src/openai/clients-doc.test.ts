import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';

const PAGE = fileURLToPath(new URL('../../../../docs/clients.md', import.meta.url));
/** Where `node -e` resolves the examples' imports: this package has `openai`, `ai` and the provider. */
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

async function blocks(language: 'sh' | 'js'): Promise<string[]> {
  const text = await readFile(PAGE, 'utf8');
  const fence = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g');
  return [...text.matchAll(fence)].map((match) => match[1]!.replaceAll(DOCUMENTED_BASE, test.url));
}

describe('docs/clients.md', () => {
  it('has a curl block for each OpenAI endpoint', async () => {
    const all = (await blocks('sh')).join('\n');
    for (const path of ['/v1/models', '/v1/chat/completions', '/v1/responses']) {
      expect(all).toContain(`${test.url}${path}`);
    }
  });

  it('runs every curl block as written', async () => {
    const outputs: string[] = [];
    for (const block of await blocks('sh')) {
      const { stdout } = await run('sh', ['-c', block], { timeout: 30_000 });
      outputs.push(stdout);
    }
    const [models, completion, streamed, response] = outputs;
    expect(JSON.parse(models!)).toMatchObject({
      object: 'list',
      data: [{ object: 'model', name: 'Eliza' }],
    });
    expect(JSON.parse(completion!)).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: expect.stringMatching(/\S/) } }],
    });
    expect(streamed).toContain('"object":"chat.completion.chunk"');
    expect(streamed).toContain('"usage":{"prompt_tokens":');
    expect(streamed!.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(JSON.parse(response!)).toMatchObject({
      object: 'response',
      status: 'completed',
      output_text: expect.stringMatching(/\S/),
    });
  });

  it('runs the openai client and AI SDK examples as written', async () => {
    const examples = await blocks('js');
    expect(examples).toHaveLength(2);
    for (const example of examples) {
      const { stdout } = await run('node', ['--input-type=module', '-e', example], {
        cwd: PACKAGE_DIR,
        timeout: 60_000,
      });
      const lines = stdout.trim().split('\n');
      expect(lines.length).toBeGreaterThanOrEqual(2);
      for (const line of lines) expect(line.trim()).not.toBe('');
    }
  });
});
