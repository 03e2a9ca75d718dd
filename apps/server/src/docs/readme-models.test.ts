import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@parley/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilListening, type ParleyChild } from '../test/parley-child';

// The README's "A real model, in one line": each line as written, run through the start script, against a
// local OpenAI-compatible server that stands in for Ollama, vLLM, LM Studio or OpenAI at the line's path. Only
// the address's host and port are this test's own; the settings' names, the path, the model and the key are
// the README's.
const README = fileURLToPath(new URL('../../../../README.md', import.meta.url));
const LAUNCHER = fileURLToPath(new URL('../../bin/start.mjs', import.meta.url));
const START = 'npx -y pnpm@10 start';

/** Where each server answers by default, as its own documentation gives it. */
const DEFAULT_ADDRESSES = {
  Ollama: 'http://localhost:11434/v1',
  vLLM: 'http://localhost:8000/v1',
  'LM Studio': 'http://localhost:1234/v1',
  OpenAI: undefined, // Parley's default, https://api.openai.com/v1
};

interface ModelLine {
  server: string;
  env: Record<string, string>;
}

async function modelLines(): Promise<ModelLine[]> {
  const text = await readFile(README, 'utf8');
  const section = text.slice(text.indexOf('### A real model, in one line'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const lines: ModelLine[] = [];
  let server = '';
  for (const line of block.split('\n').filter(Boolean)) {
    if (line.startsWith('#')) {
      server = /^# ([A-Za-z ]+?) \(/.exec(line)?.[1] ?? '';
      continue;
    }
    expect(line.endsWith(START), line).toBe(true);
    const assignments = line.slice(0, -START.length).trim().split(/\s+/);
    const env = Object.fromEntries(
      assignments.map((assignment) => {
        const match = /^([A-Z_]+)=(\S+)$/.exec(assignment);
        expect(match, assignment).not.toBeNull();
        return [match![1]!, match![2]!];
      }),
    );
    lines.push({ server, env });
  }
  return lines;
}

let cwd: string;
let fake: FakeOpenAIServer;
const seen: { model?: unknown; authorization?: string }[] = [];

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-readme-models-'));
  fake = await startFakeOpenAIServer({
    reply: 'A real answer.',
    onRequest: ({ headers, body }) =>
      seen.push({
        model: (body as { model?: unknown }).model,
        authorization: headers.authorization,
      }),
  });
});
afterAll(async () => {
  await fake?.close();
  await rm(cwd, { recursive: true, force: true });
});

describe('README: a real model, in one line', () => {
  it('has one line for each of Ollama, vLLM, LM Studio and OpenAI, at its default address', async () => {
    const lines = await modelLines();
    expect(lines.map((line) => line.server)).toEqual(Object.keys(DEFAULT_ADDRESSES));
    for (const { server, env } of lines) {
      expect(env.OPENAI_BASE_URL).toBe(DEFAULT_ADDRESSES[server as keyof typeof DEFAULT_ADDRESSES]);
      expect(env).toMatchObject({ MODEL_PROVIDER: 'openai', MODEL: expect.any(String) as string });
    }
  });

  it(
    'each line starts Parley on that model: the agent answers with it',
    { timeout: 300_000 },
    async () => {
      const fakeOrigin = new URL(fake.url).origin;
      for (const { server, env } of await modelLines()) {
        const baseUrl = new URL(env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1');
        const child = spawn(process.execPath, [LAUNCHER], {
          cwd,
          env: {
            PATH: process.env.PATH ?? '',
            ...env,
            OPENAI_BASE_URL: `${fakeOrigin}${baseUrl.pathname}`,
            PORT: '0',
            // One database for all: each server stops before the next starts.
            DATA_DIR: join(cwd, 'data'),
            PLUGINS: 'none',
            LOG_FORMAT: 'json',
            PARLEY_SKIP_BUILD: '1',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        }) as ParleyChild;
        const { url, exited } = await untilListening(child);
        try {
          seen.length = 0;
          const response = await fetch(`${url}/api/messaging/channels/${randomUUID()}/messages`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ text: 'Hello', entityId: 'user-1', mode: 'sync' }),
          });
          expect(response.status, server).toBe(200);
          const body = (await response.json()) as { agentResponse: { text: string } };
          expect(body.agentResponse.text, server).toBe('A real answer.');
          expect(seen[0]?.model, server).toBe(env.MODEL);
          if (env.OPENAI_API_KEY) {
            expect(seen[0]?.authorization).toBe(`Bearer ${env.OPENAI_API_KEY}`);
          }
        } finally {
          child.kill('SIGTERM');
          expect(await exited).toBe(0);
        }
      }
    },
  );
});
