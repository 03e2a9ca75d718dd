import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createServer } from '@parley/server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@parley/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputOf, spawnParley } from '../test/parley-child';
import { parseReembedArgs } from './reembed';

let cwd: string;
let upstream: FakeOpenAIServer;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-reembed-'));
  // "Model B": 256-dimension vectors from an OpenAI-compatible /v1/embeddings.
  upstream = await startFakeOpenAIServer({ embeddingDimensions: 256 });
});
afterAll(async () => {
  await upstream.close();
  await rm(cwd, { recursive: true, force: true });
});

const modelB = () => ({ EMBEDDING_MODEL: 'fake-embed', EMBEDDING_URL: upstream.url });

/** A server on the folder with `env`'s embedder (the offline one by default); not started. */
function serverOn(dataDir: string, env: Record<string, string> = {}) {
  return createServer({
    port: 0,
    logger: createLogger('silent'),
    env,
    characters: [{ name: 'Ada' }],
    database: { kind: 'pglite', dataDir },
  });
}

/** A folder whose agent has a knowledge document embedded by the offline embedder ("model A"). */
async function folderOnModelA(name: string): Promise<{ dataDir: string; agentId: string }> {
  const dataDir = join(cwd, name);
  const server = serverOn(dataDir);
  const { url } = await server.start();
  const agentId = server.agents.summaries()[0]!.id;
  const response = await fetch(`${url}/api/agents/${agentId}/knowledge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Parking', text: 'The parking code is 9182.' }),
  });
  expect(response.ok).toBe(true);
  await server.stop();
  return { dataDir, agentId };
}

/** Starts a server on `env` that must refuse; answers its error (the server is stopped: it holds the folder). */
async function refusal(dataDir: string, env: Record<string, string>): Promise<Error> {
  const server = serverOn(dataDir, env);
  const error = await server.start().then(
    () => new Error('started'),
    (reason: unknown) => reason as Error,
  );
  await server.stop();
  return error;
}

function reembed(dataDir: string, env: Record<string, string>, args: string[] = []) {
  return outputOf(
    spawnParley(cwd, ['reembed', ...args], { PLUGINS: 'none', DATA_DIR: dataDir, ...env }),
  );
}

describe('parley reembed', () => {
  it('re-embeds the agent with the settings start would use, after which the server starts', async () => {
    const { dataDir, agentId } = await folderOnModelA('switch');
    expect((await refusal(dataDir, modelB())).message).toMatch(/run `parley reembed`/);

    const run = await reembed(dataDir, modelB());
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(new RegExp(`^agent ${agentId}: 1/1 memories embedded$`, 'm'));
    expect(run.stdout).toContain(
      `agent ${agentId}: 1 memory re-embedded, parley-hash-v1-384 (384) → fake-embed (256)\n`,
    );
    expect(run.stdout).toMatch(/parley reembed: done; 1 agent now on fake-embed \(256\)\n$/);
    expect(run.code).toBe(0);

    const server = serverOn(dataDir, modelB());
    await server.start();
    await server.stop();
    const again = await reembed(dataDir, modelB());
    expect(again.stdout).toBe(
      "parley reembed: every agent's memories are embedded by fake-embed (256); nothing to do\n",
    );
    expect(again.code).toBe(0);
  });

  it('refuses while a server holds the folder, and exits 1 with one line when the embedder fails', async () => {
    const { dataDir, agentId } = await folderOnModelA('refusals');
    const running = serverOn(dataDir);
    await running.start();
    try {
      const locked = await reembed(dataDir, modelB());
      expect(locked.stderr).toMatch(
        /^parley reembed: DATA_DIR .* is in use by a running server \(pid \d+\): stop the server first .*nothing was changed\n$/,
      );
      expect(locked.code).toBe(1);
    } finally {
      await running.stop();
    }

    // Nothing answers on port 9: every attempt fails, and the agent stays on the offline embedder's vectors.
    const down = await reembed(dataDir, {
      EMBEDDING_MODEL: 'fake-embed',
      EMBEDDING_URL: 'http://127.0.0.1:9/v1',
      EMBEDDING_DIMENSIONS: '256',
    });
    expect(down.stderr).toMatch(
      new RegExp(
        `^parley reembed: agent ${agentId}: .*stay wholly on parley-hash-v1-384 \\(384 dimensions\\), nothing of it was changed; run \`parley reembed\` again once that is fixed\\n$`,
      ),
    );
    expect(down.code).toBe(1);
    expect((await refusal(dataDir, modelB())).message).toMatch(/run `parley reembed`/);
    const onA = serverOn(dataDir);
    await onA.start();
    await onA.stop();
  });

  it('--agent takes one agent: another is left alone, and a bad id exits 2', async () => {
    const { dataDir, agentId } = await folderOnModelA('one-agent');
    const other = '00000000-0000-4000-8000-000000000001';
    const skipped = await reembed(dataDir, modelB(), ['--agent', other]);
    expect(skipped.stdout).toBe(
      `parley reembed: agent ${other} has no stored vectors; nothing to do\n`,
    );
    expect(skipped.code).toBe(0);
    expect((await refusal(dataDir, modelB())).message).toMatch(/run `parley reembed`/);
    const done = await reembed(dataDir, modelB(), [`--agent=${agentId}`]);
    expect(done.stdout).toContain(`agent ${agentId}: 1 memory re-embedded`);
    expect(done.code).toBe(0);

    const bad = await reembed(dataDir, modelB(), ['--agent', 'Ada']);
    expect(bad.stderr).toBe(
      `parley: --agent takes an agent's id (a UUID, as GET /api/agents lists them), not "Ada"\n`,
    );
    expect(bad.code).toBe(2);
    expect(() => parseReembedArgs(['--agent'])).toThrow(/--agent takes/);
  });
});
