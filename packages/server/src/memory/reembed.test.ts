import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { startTestServer, type TestServer } from '../../test/test-server';
import type { ParleyAgentRuntime } from '../agents/agent-runtime';
import { createServer } from '../create-server';
import { createLogger } from '../logger';
import { hashEmbedding } from '../models/embeddings/hash-embeddings';
import { ReembedError } from './reembed';
import { runReembed } from './run-reembed';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const kinds = await databaseKinds();

/** The offline embedder's model: "model A" of these tests. */
const MODEL_A = 'parley-hash-v1-384 (384';

/**
 * "Model B": an OpenAI-compatible `/v1/embeddings` answering 256-dimension hashed vectors, which fails with 500
 * (`Retry-After: 0`, so the client's retries are quick) once it has answered `failAfter` requests.
 */
async function startModelB(failAfter = Infinity) {
  let answered = 0;
  const server = createHttpServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (answered >= failAfter) {
        response.writeHead(500, { 'content-type': 'application/json', 'retry-after': '0' });
        response.end('{"error":{"message":"down"}}');
        return;
      }
      answered += 1;
      const { input } = JSON.parse(body) as { input: string | string[] };
      const inputs = typeof input === 'string' ? [input] : input;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          object: 'list',
          data: inputs.map((text, index) => ({
            object: 'embedding',
            index,
            embedding: hashEmbedding(text, 256),
          })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  return { EMBEDDING_MODEL: 'fake-embed', EMBEDDING_URL: `http://127.0.0.1:${port}/v1` };
}

async function serve(database: TestDatabase, env: Record<string, string> = {}) {
  const test = await startTestServer(
    { characters: [{ name: 'Mem' }, { name: 'Other' }], env },
    database,
  );
  return test;
}

/** A server with `env` that must refuse to start; answers its error. */
async function refusal(database: TestDatabase, env: Record<string, string>): Promise<Error> {
  const server = createServer({
    port: 0,
    logger: createLogger('silent'),
    env,
    characters: [{ name: 'Mem' }, { name: 'Other' }],
    database: database.location,
  });
  const error = await server.start().then(
    () => undefined,
    (reason: unknown) => reason as Error,
  );
  // Stopping closes the room adapter too (on PostgreSQL its LISTEN connection), or that connection would count
  // as a running server below.
  await server.stop();
  expect(error).toBeInstanceOf(Error);
  return error!;
}

const runtimeOf = (test: TestServer, index = 0) =>
  test.server.agents.list()[index] as unknown as ParleyAgentRuntime;

const FACTS = [
  'Ada likes green tea in the morning',
  'Ada works as a structural engineer in Lisbon',
  'The office door code is ZX-4471',
  'Ada has a dog called Pixel',
  'Ada prefers trains to planes',
  'Ada is learning Portuguese',
];

/** Stores `texts` as facts of the agent, each with its embedding by the running server's embedder. */
async function remember(runtime: ParleyAgentRuntime, texts: readonly string[]) {
  const roomId = randomUUID();
  for (const text of texts) {
    const embedding = (await runtime.useModel('TEXT_EMBEDDING', { text })) as number[];
    await runtime.createMemory(
      { entityId: 'user-1', roomId, content: { text }, embedding },
      'facts',
    );
  }
}

/** The facts a vector search (no query text) finds first for `question`, with their vectors' lengths. */
async function search(runtime: ParleyAgentRuntime, question: string) {
  const embedding = (await runtime.useModel('TEXT_EMBEDDING', { text: question })) as number[];
  const found = await runtime.searchMemories({ tableName: 'facts', embedding, count: 10 });
  return found.map((memory) => ({
    text: memory.content.text,
    dimensions: memory.embedding?.length,
  }));
}

/** Two agents' facts stored by model A (the offline embedder); answers the agents' ids. */
async function storedByModelA(database: TestDatabase) {
  const test = await serve(database);
  await remember(runtimeOf(test, 0), FACTS);
  await remember(runtimeOf(test, 1), ['Bob drinks black coffee', 'Bob lives in Porto']);
  // A vector without a text: nothing to embed again, so it is removed rather than left on model A.
  await runtimeOf(test, 1).createMemory(
    { entityId: 'user-1', roomId: randomUUID(), content: {}, embedding: hashEmbedding('x') },
    'facts',
  );
  const ids = [runtimeOf(test, 0).agentId, runtimeOf(test, 1).agentId];
  await test.server.stop();
  return { mem: ids[0]!, other: ids[1]! };
}

describe.each(kinds)('re-embedding memories (parley reembed), on $name', (kind) => {
  it.skipIf(kind.skip)(
    'a server on model B refuses naming the command; after it, the server starts and finds the right memory with B',
    async () => {
      const database = await kind.create();
      cleanups.push(() => database.dispose());
      const { mem, other } = await storedByModelA(database);
      const modelB = await startModelB();
      const refused = await refusal(database, modelB);
      expect(refused.message).toMatch(
        new RegExp(
          `embedded by ${MODEL_A.replace(/[()]/g, '\\$&')} dimensions\\), but EMBEDDING_MODEL now gives fake-embed \\(256\\).*run \`parley reembed\``,
        ),
      );

      const progress: string[] = [];
      const outcome = await runReembed({
        database: database.location,
        env: modelB,
        pageSize: 4,
        onProgress: (step) => progress.push(`${step.agentId}:${step.done}/${step.total}`),
      });
      const before = { model: 'parley-hash-v1-384', dimensions: 384 };
      const after = { model: 'fake-embed', dimensions: 256 };
      expect(outcome.results).toEqual(
        [
          { agentId: mem, memories: 6, cleared: 0, before, after },
          { agentId: other, memories: 2, cleared: 1, before, after },
        ].sort((a, b) => a.agentId.localeCompare(b.agentId)),
      );
      expect(progress).toEqual(
        expect.arrayContaining([`${mem}:4/6`, `${mem}:6/6`, `${other}:2/2`]),
      );

      const test = await serve(database, modelB);
      const found = await search(runtimeOf(test, 0), 'what is the door code?');
      expect(found[0]).toEqual({ text: 'The office door code is ZX-4471', dimensions: 256 });
      for (const fact of FACTS) {
        expect((await search(runtimeOf(test, 0), fact))[0]).toEqual({
          text: fact,
          dimensions: 256,
        });
      }
      await test.server.stop();
      // Nothing is left to do: a second run switches nothing.
      expect((await runReembed({ database: database.location, env: modelB })).results).toEqual([]);
    },
  );

  it.skipIf(kind.skip)(
    'an embedder failing midway leaves the agent wholly on model A; a second run completes',
    async () => {
      const database = await kind.create();
      cleanups.push(() => database.dispose());
      const { mem } = await storedByModelA(database);
      // One answer for the length probe, one for the first page of two memories; then 500s.
      const failing = await startModelB(2);
      const error = await runReembed({
        database: database.location,
        env: failing,
        agentId: mem,
        pageSize: 2,
      }).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(ReembedError);
      expect((error as Error).message).toMatch(
        new RegExp(`^agent ${mem}: .*stay wholly on parley-hash-v1-384 \\(384 dimensions\\)`),
      );

      // Still on A: a server on B refuses, and a search with A finds the memory among A's vectors only.
      const modelB = await startModelB();
      expect((await refusal(database, modelB)).message).toContain(`agent ${mem}'s memories`);
      const onA = await serve(database);
      // Each memory is found first by its own text, with a vector of A's length: none was switched.
      for (const fact of FACTS) {
        expect((await search(runtimeOf(onA, 0), fact))[0]).toEqual({ text: fact, dimensions: 384 });
      }
      await onA.server.stop();

      const again = await runReembed({ database: database.location, env: modelB, pageSize: 2 });
      expect(again.results).toEqual(
        expect.arrayContaining([expect.objectContaining({ agentId: mem, memories: 6 })]),
      );
      const onB = await serve(database, modelB);
      const afterwards = await search(runtimeOf(onB, 0), 'what is the door code?');
      expect(afterwards[0]).toEqual({ text: 'The office door code is ZX-4471', dimensions: 256 });
      await onB.server.stop();
    },
  );

  it.skipIf(kind.skip)(
    '--agent limits it to one agent; the other stays on A and still stops a server on B',
    async () => {
      const database = await kind.create();
      cleanups.push(() => database.dispose());
      const { mem, other } = await storedByModelA(database);
      const modelB = await startModelB();
      const outcome = await runReembed({
        database: database.location,
        env: modelB,
        agentId: other,
      });
      expect(outcome.results.map((result) => result.agentId)).toEqual([other]);
      expect(outcome.recorded).toEqual({ model: 'fake-embed', dimensions: 256 });
      const refused = await refusal(database, modelB);
      expect(refused.message).toContain(`agent ${mem}'s memories`);
      // The agent already on B: nothing to do, and it is said to be on B.
      const again = await runReembed({ database: database.location, env: modelB, agentId: other });
      expect(again).toMatchObject({ results: [], recorded: { model: 'fake-embed' } });
    },
  );
});

describe.skipIf(kinds[1]!.skip)('re-embedding on PostgreSQL', () => {
  it('refuses while a server is connected to the database, changing nothing', async () => {
    const database = await kinds[1]!.create();
    cleanups.push(() => database.dispose());
    const { mem } = await storedByModelA(database);
    const running = await serve(database);
    const modelB = await startModelB();
    await expect(runReembed({ database: database.location, env: modelB })).rejects.toThrow(
      /other sessions? (is|are) connected to this database .*stop every server that uses DATABASE_URL first/,
    );
    await running.server.stop();
    expect((await refusal(database, modelB)).message).toContain(`agent ${mem}'s memories`);
  });
});

describe('re-embedding the embedded database', () => {
  it('refuses while a server holds its folder, changing nothing', async () => {
    const database = await kinds[0]!.create();
    cleanups.push(() => database.dispose());
    await storedByModelA(database);
    const running = await serve(database);
    cleanups.push(() => running.server.stop());
    const modelB = await startModelB();
    await expect(runReembed({ database: database.location, env: modelB })).rejects.toThrow(
      /is in use by .*stop the other server/,
    );
    const found = await search(runtimeOf(running, 0), 'what is the door code?');
    expect(found[0]).toEqual({ text: 'The office door code is ZX-4471', dimensions: 384 });
  });
});
