import { randomUUID } from 'node:crypto';
import { ParleyError } from '@parley/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresDatabase, databaseKinds, type TestDatabase } from '../../test/databases';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createServer } from '../create-server';
import { createLogger } from '../logger';
import type { ParleyAgentRuntime } from '../agents/agent-runtime';
import type { EmbeddingProvider } from '../models/embeddings';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const kinds = await databaseKinds();

async function serve(database: TestDatabase, extra: Parameters<typeof startTestServer>[0] = {}) {
  const test = await startTestServer(
    { characters: [{ name: 'Mem' }, { name: 'Other' }], ...extra },
    database,
  );
  cleanups.push(() => test.server.stop());
  return test;
}

const runtimeOf = (test: TestServer, index = 0) =>
  test.server.agents.list()[index] as unknown as ParleyAgentRuntime;

const embed = (runtime: ParleyAgentRuntime, text: string) =>
  runtime.useModel('TEXT_EMBEDDING', { text }) as Promise<number[]>;

/** Stores `texts` as facts of one room, each with its embedding; answers their ids in order. */
async function remember(
  runtime: ParleyAgentRuntime,
  texts: string[],
  roomId: string,
  entityId = 'user-1',
  fixedIds = false,
) {
  const ids: string[] = [];
  for (const [index, text] of texts.entries()) {
    // Fixed ids where two databases are compared: equal scores are ordered by id.
    const id = fixedIds ? `00000000-0000-4000-8000-${String(index).padStart(12, '0')}` : undefined;
    ids.push(
      await runtime.createMemory(
        {
          ...(id ? { id } : {}),
          entityId,
          roomId,
          content: { text },
          embedding: await embed(runtime, text),
        },
        'facts',
      ),
    );
  }
  return ids;
}

const FACTS = [
  'Ada likes green tea in the morning',
  'Ada works as a structural engineer in Lisbon',
  'The office door code is ZX-4471',
  'Ada has a dog called Pixel',
  'Ada prefers trains to planes',
  'Ada is learning Portuguese',
];

async function caught(work: Promise<unknown>): Promise<ParleyError> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(ParleyError.isInstance(error)).toBe(true);
  return error as ParleyError;
}

describe.each(kinds)('the memory store through the agent runtime, on $name', (kind) => {
  it.skipIf(kind.skip)(
    'creates, lists, counts, updates and deletes, per agent and room',
    async () => {
      const test = await serve(await kind.create());
      cleanups.push(() => test.database.dispose());
      const runtime = runtimeOf(test);
      const other = runtimeOf(test, 1);
      const room = randomUUID();
      const ids = await remember(runtime, FACTS.slice(0, 3), room);
      await remember(runtime, ['In another room'], randomUUID());
      expect(await runtime.countMemories(room, undefined, 'facts')).toBe(3);
      expect(await other.countMemories(room, undefined, 'facts')).toBe(0);
      const listed = await runtime.getMemories({ tableName: 'facts', roomId: room });
      expect(listed.map((memory) => memory.content.text).sort()).toEqual(FACTS.slice(0, 3).sort());
      expect(listed[0]!.embedding).toHaveLength(384);
      // Another agent can neither read nor delete them.
      expect(await other.getMemoryById(ids[0]!)).toBeNull();
      await other.deleteMemory(ids[0]!);
      expect(await runtime.getMemoryById(ids[0]!)).not.toBeNull();
      expect(
        await runtime.updateMemory({
          id: ids[0]!,
          content: { text: 'Ada likes black tea' },
          metadata: { v: 2 },
        }),
      ).toBe(true);
      const updated = await runtime.getMemoryById(ids[0]!);
      expect(updated?.content.text).toBe('Ada likes black tea');
      expect(updated?.metadata).toMatchObject({ v: 2 });
      expect(
        (await runtime.getMemoriesByIds([ids[1]!, ids[2]!, randomUUID()], 'facts')).length,
      ).toBe(2);
      await runtime.deleteMemory(ids[1]!);
      expect(await runtime.getMemoryById(ids[1]!)).toBeNull();
      await runtime.deleteAllMemories(room, 'facts');
      expect(await runtime.countMemories(room, undefined, 'facts')).toBe(0);
    },
  );

  it.skipIf(kind.skip)(
    'lists every memory when no count is given, as elizaOS does (up to the store’s 1,000 a call), not a page of 100',
    async () => {
      const test = await serve(await kind.create());
      cleanups.push(() => test.database.dispose());
      const runtime = runtimeOf(test);
      const room = randomUUID();
      for (let index = 0; index < 130; index += 1) {
        await runtime.createMemory(
          { entityId: 'user-1', roomId: room, content: { text: `fragment ${index}` } },
          'facts',
        );
      }
      expect(await runtime.getMemories({ tableName: 'facts', roomId: room })).toHaveLength(130);
      expect(
        await runtime.getMemories({ tableName: 'facts', roomId: room, count: 10_000 }),
      ).toHaveLength(130);
      expect(
        await runtime.getMemories({ tableName: 'facts', roomId: room, count: 7 }),
      ).toHaveLength(7);
    },
  );

  it.skipIf(kind.skip)(
    'searches by embedding with threshold, count and entity filters; a code word the vector ranks low is found with its words',
    async () => {
      const test = await serve(await kind.create());
      cleanups.push(() => test.database.dispose());
      const runtime = runtimeOf(test);
      const room = randomUUID();
      await remember(runtime, FACTS, room);
      await remember(runtime, ['Bob likes green tea too'], room, 'user-2');
      const question = 'what does Ada like to drink in the morning';
      const embedding = await embed(runtime, question);
      const found = await runtime.searchMemories({
        tableName: 'facts',
        embedding,
        count: 3,
        roomId: room,
      });
      expect(found).toHaveLength(3);
      expect(found[0]!.content.text).toBe(FACTS[0]);
      const similarities = found.map((memory) => memory.similarity!);
      expect([...similarities].sort((a, b) => b - a)).toEqual(similarities);
      const strict = await runtime.searchMemories({
        tableName: 'facts',
        embedding,
        match_threshold: similarities[1]! + 1e-6,
        count: 10,
      });
      expect(strict.map((memory) => memory.content.text)).toEqual([FACTS[0]]);
      const bobs = await runtime.searchMemories({
        tableName: 'facts',
        embedding,
        entityId: 'user-2',
      });
      expect(bobs.map((memory) => memory.entityId)).toEqual(['user-2']);
      // "ZX-4471" alone: its vector is far from the question's, its words are not.
      const codeQuestion = 'what is ZX-4471 for?';
      const codeEmbedding = await embed(runtime, 'Ada');
      const vectorOnly = await runtime.searchMemories({
        tableName: 'facts',
        embedding: codeEmbedding,
        count: 7,
      });
      const rank = vectorOnly.findIndex((memory) => memory.content.text === FACTS[2]);
      expect(rank === -1 || rank >= 5).toBe(true);
      const hybrid = await runtime.searchMemories({
        tableName: 'facts',
        embedding: codeEmbedding,
        query: codeQuestion,
        count: 2,
      });
      expect(hybrid.map((memory) => memory.content.text)).toContain(FACTS[2]);
    },
  );

  it.skipIf(kind.skip)('a search sees the writes made since the last search', async () => {
    const test = await serve(await kind.create());
    cleanups.push(() => test.database.dispose());
    const runtime = runtimeOf(test);
    const room = randomUUID();
    await remember(runtime, FACTS, room);
    const question = 'Ada rides a red bicycle to work';
    const embedding = await embed(runtime, question);
    const search = () => runtime.searchMemories({ tableName: 'facts', embedding, count: 1 });
    expect((await search())[0]!.content.text).not.toBe(question);
    const [id] = await remember(runtime, [question], room);
    expect((await search())[0]!.id).toBe(id);
    await runtime.updateMemory({
      id: id!,
      embedding: await embed(runtime, 'something else entirely'),
    });
    expect((await search())[0]!.id).not.toBe(id);
    await runtime.updateMemory({ id: id!, embedding });
    expect((await search())[0]!.id).toBe(id);
    await runtime.deleteMemory(id!);
    expect((await search())[0]!.id).not.toBe(id);
  });

  it.skipIf(kind.skip)('refuses bad input with a clear BAD_REQUEST, storing nothing', async () => {
    const test = await serve(await kind.create());
    cleanups.push(() => test.database.dispose());
    const runtime = runtimeOf(test);
    const room = randomUUID();
    const wrong = await caught(
      runtime.createMemory(
        { entityId: 'u', roomId: room, content: { text: 'x' }, embedding: [1, 2, 3] },
        'facts',
      ),
    );
    expect(wrong.code).toBe('BAD_REQUEST');
    expect(wrong.message).toMatch(/3 dimensions.*384/);
    expect(
      (await caught(runtime.searchMemories({ tableName: 'facts', embedding: [0.5, 0.5] }))).code,
    ).toBe('BAD_REQUEST');
    expect(
      (
        await caught(
          runtime.createMemory(
            { entityId: 'u', roomId: room, content: { text: 'x' } },
            'bad table!',
          ),
        )
      ).code,
    ).toBe('BAD_REQUEST');
    expect(
      (
        await caught(
          runtime.searchMemories({
            tableName: 'facts',
            embedding: await embed(runtime, 'x'),
            match_threshold: 5,
          }),
        )
      ).code,
    ).toBe('BAD_REQUEST');
    expect(await runtime.countMemories(room, undefined, 'facts')).toBe(0);
    // elizaOS's probe: null answers a vector of the embedder's length.
    expect(await runtime.useModel('TEXT_EMBEDDING', null as never)).toHaveLength(384);
  });
});

describe('the memory store across processes and databases', () => {
  const postgres = kinds.find((kind) => kind.name === 'postgres')!;

  it.skipIf(postgres.skip)(
    "two servers sharing PostgreSQL see each other's memories and deletions",
    async () => {
      const database = await createPostgresDatabase();
      cleanups.push(() => database.dispose());
      const first = await serve(database);
      const second = await serve(database);
      const room = randomUUID();
      const [id] = await remember(
        runtimeOf(first),
        ['The staging database lives in Frankfurt'],
        room,
      );
      const writer = runtimeOf(first);
      const reader = runtimeOf(second);
      const found = await reader.searchMemories({
        tableName: 'facts',
        embedding: await embed(reader, 'where is the staging database'),
        query: 'staging database Frankfurt',
      });
      expect(found.map((memory) => memory.id)).toEqual([id]);
      await reader.deleteMemory(id!);
      expect(await writer.getMemoryById(id!)).toBeNull();
    },
  );

  it.skipIf(postgres.skip)('PGlite and PostgreSQL answer the same searches the same', async () => {
    const answers: string[][][] = [];
    for (const kind of kinds) {
      const test = await serve(await kind.create());
      cleanups.push(() => test.database.dispose());
      const runtime = runtimeOf(test);
      const room = '00000000-0000-4000-8000-000000000001';
      await remember(runtime, FACTS, room, 'user-1', true);
      const questions = ['Ada tea', 'door code ZX-4471', 'where does Ada work', 'pets'];
      const results: string[][] = [];
      for (const question of questions) {
        const embedding = await embed(runtime, question);
        for (const query of [undefined, question]) {
          const found = await runtime.searchMemories({
            tableName: 'facts',
            embedding,
            query,
            count: 4,
          });
          results.push(
            found.map((memory) => `${memory.content.text}@${memory.similarity!.toFixed(6)}`),
          );
        }
      }
      answers.push(results);
    }
    expect(answers[1]).toEqual(answers[0]);
  });

  it('a server refuses to start when stored vectors come from another embedding model', async () => {
    const database = await kinds[0]!.create();
    cleanups.push(() => database.dispose());
    const test = await serve(database);
    await remember(runtimeOf(test), ['Ada likes green tea'], randomUUID());
    await test.server.stop();
    const other: EmbeddingProvider = {
      name: 'openai',
      model: 'text-embedding-3-small',
      dimensions: 1536,
      embed: (texts) => Promise.resolve(texts.map(() => Array.from({ length: 1536 }, () => 0.1))),
    };
    const server = createServer({
      port: 0,
      logger: createLogger('silent'),
      env: {},
      characters: [{ name: 'Mem' }],
      database: database.location,
      embeddings: other,
    });
    cleanups.push(() => server.stop());
    await expect(server.start()).rejects.toThrow(
      /embedded by parley-hash-v1-384 \(384 dimensions\).*text-embedding-3-small \(1536\).*set EMBEDDING_MODEL back/,
    );
  });
});
