import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@parley/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilListening, type ParleyChild } from '../test/parley-child';

// The README's "Memory and knowledge" commands, as written, against the start script on the embedded database.
// Only the address is this test's own. The model is a local OpenAI-compatible server that records its prompts,
// so the test sees what the README promises a real model gets: the handbook's sentence in its context.
const README = fileURLToPath(new URL('../../../../README.md', import.meta.url));
const LAUNCHER = fileURLToPath(new URL('../../bin/start.mjs', import.meta.url));
const MARKER = '<!-- run: apps/server/src/docs/readme-memory.test.ts -->';
const run = promisify(execFile);

/** The marked block's commands, one entry each (a `\` continuation joined), without the `# …` output lines. */
async function commands(): Promise<string[]> {
  const text = await readFile(README, 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(text.indexOf(MARKER)))?.[1] ?? '';
  const joined = block.replace(/\\\n/g, ' ');
  // The heredoc is one command with its lines.
  const heredoc = /^cat > \S+ <<'(\w+)'\n[\s\S]*?\n\1$/m.exec(joined)?.[0] ?? '';
  const rest = joined.replace(heredoc, '').split('\n');
  return [heredoc, ...rest.filter((line) => line.trim() !== '' && !line.startsWith('#'))];
}

let cwd: string;
let fake: FakeOpenAIServer;
const prompts: string[] = [];

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-readme-memory-'));
  fake = await startFakeOpenAIServer({
    reply: 'On Tuesdays at 04:00 UTC.',
    onRequest: ({ body }) => prompts.push(JSON.stringify(body)),
  });
});
afterAll(async () => {
  await fake?.close();
  await rm(cwd, { recursive: true, force: true });
});

describe('README: memory and knowledge', () => {
  it(
    'uploads the handbook, the model gets its sentence with the question, the reply names its source, the fact about the person is listed and forgotten',
    { timeout: 180_000 },
    async () => {
      const lines = await commands();
      expect(lines[0]).toMatch(/^cat > handbook\.md/);
      const child = spawn(process.execPath, [LAUNCHER], {
        cwd,
        env: {
          PATH: process.env.PATH ?? '',
          PORT: '0',
          DATA_DIR: join(cwd, 'data'),
          MODEL_PROVIDER: 'openai',
          OPENAI_BASE_URL: `${fake.url}`,
          MODEL: 'test-model',
          LOG_FORMAT: 'json',
          PARLEY_SKIP_BUILD: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }) as ParleyChild;
      const { url, exited } = await untilListening(child);
      try {
        // One shell, as a reader would paste the commands; each command's output kept apart.
        const outputs: string[] = [];
        const shell = async (command: string) =>
          (await run('bash', ['-c', command], { cwd })).stdout.trim();
        const vars: string[] = [];
        const withVars = (command: string) => [...vars, command].join('\n');
        for (const line of lines) {
          const command = line.replaceAll('http://127.0.0.1:3000', url);
          const assignment = /^(\w+)=\$\((.*)\)$/.exec(command);
          if (assignment) {
            vars.push(`${assignment[1]}='${await shell(withVars(assignment[2]!))}'`);
            continue;
          }
          if (command.includes('/memories?entityId=') && !command.includes('DELETE')) {
            // Facts are written just after the reply, off its path: a reader's next command comes later than a
            // script's, so the test asks until the fact is there (bounded).
            let listed = '';
            for (
              let attempt = 0;
              attempt < 100 && !listed.includes('Their name is Ada');
              attempt++
            ) {
              listed = await shell(withVars(command));
              if (!listed.includes('Their name is Ada')) {
                await new Promise((resolve) => setTimeout(resolve, 100));
              }
            }
            outputs.push(listed);
            continue;
          }
          outputs.push(await shell(withVars(command)));
        }
        const [, upload, answer, sources, listed, forgotten] = outputs;
        expect(JSON.parse(upload!)).toMatchObject({
          success: true,
          data: { documents: [{ title: 'handbook.md', fragmentCount: 1 }] },
        });
        expect(JSON.parse(answer!)).toMatchObject({
          agentResponse: { text: 'On Tuesdays at 04:00 UTC.' },
        });
        // The model's prompt carried the handbook's sentence (the question alone does not hold "04:00").
        expect(prompts.some((prompt) => prompt.includes('reset every Tuesday at 04:00 UTC'))).toBe(
          true,
        );
        expect(sources).toContain("title: 'handbook.md'");
        expect(JSON.parse(listed!)).toMatchObject({
          success: true,
          data: { memories: [{ content: { text: 'Their name is Ada' }, tableName: 'facts' }] },
        });
        expect(JSON.parse(forgotten!)).toMatchObject({ success: true, data: { deleted: 1 } });
      } finally {
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      }
    },
  );
});
