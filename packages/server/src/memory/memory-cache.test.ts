import { randomUUID } from 'node:crypto';
import type { CompiledQuery, Kysely, QueryExecutor } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { copyPGliteTemplate } from '../../test/databases';
import { createDatabase } from '../storage/create-database';
import type { DatabaseSchema } from '../storage/schema';
import type { MemorySearch, NewMemory } from './memory-store';
import { SqlMemoryStore } from './sql-memory-store';
import { VectorCache, type CacheRow } from './vector-cache';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DIMENSIONS = 384;
const TABLE = 'facts';

/** A deterministic generator (xorshift32), so a failure is the same at each run. */
function randomOf(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

async function openDatabase() {
  const copy = await copyPGliteTemplate();
  const database = createDatabase(copy.location);
  await database.migrate();
  cleanups.push(() => copy.dispose());
  cleanups.push(() => database.close());
  return database.db;
}

/**
 * `db` whose reads answer late (0 to 20 ms, drawn from `random`, after the database has run them) and whose writes
 * do not: a read of the table for the cache is then still on its way while writes complete, as on a busy server.
 */
function slowReads(db: Kysely<DatabaseSchema>, random: () => number): Kysely<DatabaseSchema> {
  const bound = <T extends object>(target: T, prop: string | symbol) => {
    const value: unknown = Reflect.get(target, prop, target);
    return typeof value === 'function'
      ? (value as (...args: unknown[]) => unknown).bind(target)
      : value;
  };
  const executorOf = (executor: QueryExecutor) =>
    new Proxy(executor, {
      get: (target, prop) =>
        prop === 'executeQuery'
          ? async (query: CompiledQuery) => {
              const result = await target.executeQuery(query);
              if (/^\s*(SELECT|WITH)\b/i.test(query.sql)) {
                await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 20)));
              }
              return result;
            }
          : bound(target, prop),
    });
  return new Proxy(db, {
    get: (target, prop) =>
      prop === 'getExecutor' ? () => executorOf(target.getExecutor()) : bound(target, prop),
  });
}

/** A store over `db`: with its own vector cache (as the embedded database's server has), or searching in SQL. */
const storeOf = (db: Awaited<ReturnType<typeof openDatabase>>, cached: boolean) =>
  new SqlMemoryStore(db, {
    dimensions: () => DIMENSIONS,
    model: () => 'test-model',
    vectorSearch: () => 'exact',
    ...(cached ? { cache: new VectorCache() } : {}),
  });

describe('the cached exact search kept up to date by writes (issue 37)', () => {
  it('answers as the SQL search and a fresh cache after writes and searches released together', async () => {
    const db = await openDatabase();
    const agentId = randomUUID();
    const random = randomOf(37);
    // Few distinct vectors, so that many memories tie and their order is by id.
    const palette = Array.from({ length: 40 }, () =>
      Array.from({ length: DIMENSIONS }, () => random() * 2 - 1),
    );
    const vector = () => palette[Math.floor(random() * palette.length)]!;
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const rooms = ['room-a', 'room-b', 'room-c'];
    const memory = (): NewMemory => ({
      agentId,
      entityId: pick(['ada', 'bob']),
      roomId: pick(rooms),
      ...(random() < 0.5 ? { worldId: pick(['w1', 'w2']) } : {}),
      content: { text: `memory ${random()}` },
      embedding: vector(),
    });

    const store = storeOf(slowReads(db, randomOf(7)), true);
    const sqlStore = storeOf(db, false);
    const live: string[] = await store.createMany(Array.from({ length: 150 }, memory), TABLE);
    const searches: Omit<MemorySearch, 'embedding'>[] = [
      { agentId, tableName: TABLE, count: 200, threshold: -1 },
      { agentId, tableName: TABLE, count: 15 },
      { agentId, tableName: TABLE, count: 30, roomId: 'room-b', threshold: -1 },
      { agentId, tableName: TABLE, count: 30, entityId: 'ada', worldId: 'w1', threshold: -1 },
      { agentId, tableName: TABLE, count: 30, unique: true, threshold: -1 },
      // Hybrid: the full-text ranking fused with the vector one (every text has "memory", some the digits).
      { agentId, tableName: TABLE, count: 20, query: 'memory 0.5' },
      { agentId, tableName: TABLE, count: 10, query: 'memory', roomId: 'room-a', threshold: -1 },
    ];
    const answer = async (on: SqlMemoryStore, embedding: number[]) =>
      Promise.all(
        searches.map(async (search) =>
          (await on.search({ ...search, embedding })).map(
            (found) => `${found.id} ${found.similarity}`,
          ),
        ),
      );
    await store.search({ ...searches[0]!, embedding: vector() });

    for (let batch = 0; batch < 10; batch += 1) {
      // Every other batch, the cached table is dropped first (a bulk delete that deletes nothing): the batch's
      // first search reads it again while the writes run, which must not lose them. In the others, the writes are
      // applied to the table loaded.
      if (batch % 2 === 1) {
        expect(await store.deleteAll({ agentId, tableName: TABLE, roomId: 'no-such-room' })).toBe(
          0,
        );
      }
      const work: (() => Promise<unknown>)[] = [];
      // A batch of deletes only: enough dead slots that the table is compacted.
      const deletes = batch === 6 ? Math.floor(live.length * 0.8) : 5;
      for (let index = 0; index < 12; index += 1) {
        work.push(async () => {
          const id = await store.create(memory(), TABLE, random() < 0.3);
          live.push(id);
        });
        work.push(() => store.search({ ...pick(searches), embedding: vector() }));
        work.push(() =>
          store.update(
            { id: pick(live), embedding: vector() },
            random() < 0.5 ? agentId : undefined,
          ),
        );
        work.push(() => store.addEmbedding(pick(live), vector(), agentId));
      }
      work.push(async () => live.push(...(await store.createMany([memory(), memory()], TABLE))));
      for (let index = 0; index < deletes; index += 1) {
        const id = live.splice(Math.floor(random() * live.length), 1)[0]!;
        work.push(() => store.delete(id, random() < 0.5 ? agentId : undefined));
      }
      // Shuffled, then released together.
      for (let index = work.length - 1; index > 0; index -= 1) {
        const other = Math.floor(random() * (index + 1));
        [work[index], work[other]] = [work[other]!, work[index]!];
      }
      await Promise.all([
        store.search({ ...searches[0]!, embedding: vector() }),
        ...work.map((start) => start()),
      ]);

      expect(await sqlStore.count({ agentId, tableName: TABLE })).toBe(live.length);
      const fresh = storeOf(db, true);
      for (let query = 0; query < 3; query += 1) {
        const embedding = query === 0 ? pick(palette) : vector().map((value) => value + random());
        const expected = await answer(sqlStore, embedding);
        expect(expected[0]!.length).toBe(Math.min(200, live.length));
        expect(await answer(store, embedding)).toEqual(expected);
        expect(await answer(fresh, embedding)).toEqual(expected);
      }
    }
  }, 120_000);

  it('a bulk delete drops the cached table: the next search reads it again', async () => {
    const db = await openDatabase();
    const agentId = randomUUID();
    const store = storeOf(db, true);
    const embedding = Array.from({ length: DIMENSIONS }, (_, index) => Math.sin(index));
    const memories = ['room-a', 'room-a', 'room-b'].map((roomId) => ({
      agentId,
      entityId: 'ada',
      roomId,
      content: { text: roomId },
      embedding,
    }));
    await store.createMany(memories, TABLE);
    const search = async () =>
      (await store.search({ agentId, tableName: TABLE, embedding })).map((found) => found.roomId);
    expect(await search()).toHaveLength(3);
    expect(await store.deleteAll({ agentId, tableName: TABLE, roomId: 'room-a' })).toBe(2);
    expect(await search()).toEqual(['room-b']);
  }, 60_000);
});

/** A person's facts, as the recall before each reply reads them. */
const personQuery = (agentId: string) => ({
  agentId,
  tableName: TABLE,
  entityId: 'ada',
  count: 10,
  withoutEmbeddings: true,
});

describe("a person's reads kept between writes (the facts recalled before each reply)", () => {
  it('answer as the database after each round of writes and reads released together, reads late', async () => {
    const db = await openDatabase();
    const random = randomOf(11);
    const kept = storeOf(slowReads(db, random), true);
    const plain = storeOf(db, false);
    const agentId = randomUUID();
    const query = personQuery(agentId);
    const seen = async (store: SqlMemoryStore) =>
      (await store.get(query)).map((record) => `${record.id}:${String(record.content.text)}`);
    const ids: string[] = [];
    for (let round = 0; round < 30; round += 1) {
      const write = async () => {
        const pick = random();
        if (ids.length === 0 || pick < 0.4) {
          const [id] = await kept.createMany(
            [{ agentId, entityId: 'ada', roomId: 'room', content: { text: `fact ${round}` } }],
            TABLE,
          );
          ids.push(id!);
        } else if (pick < 0.7) {
          const id = ids[Math.floor(random() * ids.length)]!;
          await kept.update({ id, content: { text: `changed in ${round}` } }, agentId);
        } else if (pick < 0.9) {
          const [id] = ids.splice(Math.floor(random() * ids.length), 1);
          await kept.delete(id!, agentId);
        } else {
          ids.length = 0;
          await kept.deleteAll({ agentId, tableName: TABLE, entityId: 'ada' });
        }
      };
      await Promise.all([seen(kept), write(), seen(kept), seen(kept)]);
      expect(await seen(kept)).toEqual(await seen(plain));
    }
  }, 120_000);

  it('hands each caller its own records: a caller that changes one changes nobody else’s read', async () => {
    const db = await openDatabase();
    const kept = storeOf(db, true);
    const agentId = randomUUID();
    const query = personQuery(agentId);
    await kept.createMany(
      [
        {
          agentId,
          entityId: 'ada',
          roomId: 'room',
          content: { text: 'likes tea' },
          metadata: { n: 1 },
        },
      ],
      TABLE,
    );
    for (const [first] of [await kept.get(query), await kept.get(query)]) {
      first!.content.text = 'changed by a caller';
      first!.metadata = { n: 2 };
    }
    const [again] = await kept.get(query);
    expect(again!.content.text).toBe('likes tea');
    expect(again!.metadata).toEqual({ n: 1 });
  }, 60_000);
});

describe('VectorCache', () => {
  const DIMS = 3;
  const rowOf = (id: string, values: number[]): CacheRow => ({
    id,
    room_id: 'r',
    entity_id: 'e',
    world_id: null,
    is_unique: false,
    embedding: `{${values.join(',')}}`,
  });
  const writeOf = (id: string, values: number[]) => ({
    id,
    room_id: 'r',
    entity_id: 'e',
    world_id: null,
    is_unique: false,
    embedding: values,
  });
  const ids = (cache: VectorCache, table: Awaited<ReturnType<VectorCache['ensure']>>) =>
    cache.search(table, [1, 0, 0], {}, -1, 10).map((hit) => hit.id);

  it('applies the writes made while a table is read to what was read, and reads it once', async () => {
    const cache = new VectorCache();
    const key = VectorCache.key('agent', 'facts', DIMS);
    let reads = 0;
    let release!: (rows: CacheRow[]) => void;
    const read = () => {
      reads += 1;
      return new Promise<CacheRow[]>((resolve) => (release = resolve));
    };
    const first = cache.ensure(key, DIMS, read);
    const second = cache.ensure(key, DIMS, read);
    // Written while the read is in flight: the read saw `a` and `b` as they were before.
    cache.put('agent', 'facts', writeOf('c', [0.5, 0.5, 0]));
    cache.put('agent', 'facts', writeOf('a', [0, 1, 0]));
    cache.remove('agent', 'facts', 'b');
    cache.put('agent', 'other', writeOf('d', [1, 0, 0]));
    release([rowOf('a', [1, 0, 0]), rowOf('b', [0.9, 0.1, 0])]);
    const table = await first;
    expect(await second).toBe(table);
    expect(reads).toBe(1);
    expect(ids(cache, table)).toEqual(['c', 'a']);
    expect(cache.has(key)).toBe(true);
    // Kept up to date once loaded.
    cache.put('agent', 'facts', writeOf('e', [1, 0, 0]));
    cache.remove('agent', 'facts', 'c');
    expect(ids(cache, await cache.ensure(key, DIMS, read))).toEqual(['e', 'a']);
    expect(reads).toBe(1);
  });

  it('does not keep a table read while a bulk delete dropped it, but answers the search that waited', async () => {
    const cache = new VectorCache();
    const key = VectorCache.key('agent', 'facts', DIMS);
    let release!: (rows: CacheRow[]) => void;
    const loading = cache.ensure(
      key,
      DIMS,
      () => new Promise<CacheRow[]>((resolve) => (release = resolve)),
    );
    cache.invalidate('agent', 'facts');
    release([rowOf('a', [1, 0, 0])]);
    expect(ids(cache, await loading)).toEqual(['a']);
    expect(cache.has(key)).toBe(false);
  });

  it('compacts dead slots and grows past its first size, answering by similarity then id', async () => {
    const cache = new VectorCache();
    const key = VectorCache.key('agent', 'facts', DIMS);
    const table = await cache.ensure(key, DIMS, () => Promise.resolve([]));
    const names = Array.from({ length: 500 }, (_, index) => `id-${String(index).padStart(3, '0')}`);
    for (const [index, name] of names.entries())
      cache.put('agent', 'facts', writeOf(name, [1, index % 2, 0]));
    for (const name of names.slice(0, 400)) cache.remove('agent', 'facts', name);
    cache.put('agent', 'facts', writeOf('id-499', [1, 0, 0]));
    expect(cache.search(table, [1, 0, 0], {}, -1, 4).map((hit) => hit.id)).toEqual([
      'id-400',
      'id-402',
      'id-404',
      'id-406',
    ]);
    expect(cache.search(table, [1, 0, 0], {}, -1, 200)).toHaveLength(100);
    expect(cache.search(table, [1, 0, 0], {}, -1, 200).at(-1)!.id).toBe('id-497');
  });
});
