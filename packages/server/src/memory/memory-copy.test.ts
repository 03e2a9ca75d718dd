import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { copyPGliteTemplate } from '../../test/databases';
import { createDatabase } from '../storage/create-database';
import type { NewMemory } from './memory-store';
import { SqlMemoryStore } from './sql-memory-store';
import { VectorCache } from './vector-cache';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DIMENSIONS = 8;

/**
 * Bulk inserts on the embedded database go as binary COPY (memory-copy.ts). What they store must be what an
 * INSERT stores, field by field, with the generated columns (length, full-text) computed alike.
 */
describe('memories copied in binary on the embedded database', () => {
  it('store what an insert stores: texts, JSON, nulls, vectors, times, words', async () => {
    const copy = await copyPGliteTemplate();
    const database = createDatabase(copy.location);
    await database.migrate();
    cleanups.push(
      () => copy.dispose(),
      () => database.close(),
    );
    expect(database.copyBinary).toBeTypeOf('function');
    const options = {
      dimensions: () => DIMENSIONS,
      model: () => 'test-model',
      vectorSearch: () => 'exact' as const,
      cache: new VectorCache(),
    };
    const copied = new SqlMemoryStore(database.db, { ...options, copyBinary: database.copyBinary });
    const inserted = new SqlMemoryStore(database.db, { ...options, cache: new VectorCache() });
    const [copyAgent, insertAgent] = [randomUUID(), randomUUID()];
    const memories = (agentId: string): NewMemory[] =>
      Array.from({ length: 1_203 }, (_, index) => ({
        agentId,
        entityId: index % 2 ? 'ada' : 'Bob Ünïcode 🙂',
        roomId: `room-${index % 3}`,
        ...(index % 5 === 0 ? { worldId: `world-${index}` } : {}),
        content: {
          text: `fact ${index}: the code is ZX-${index} — naïve café`,
          n: index,
          nested: [null, true],
        },
        metadata: index % 7 === 0 ? {} : { type: 'facts', score: index / 3, quote: 'say "hi"\\n' },
        ...(index % 4 === 3
          ? {}
          : {
              embedding: Array.from(
                { length: DIMENSIONS },
                (_, item) => Math.sin(index + item) * 1e-3 * (item + 1),
              ),
            }),
        createdAt: Date.UTC(2026, 10, 29, 10, 0, 0, index),
      }));
    const copiedIds = await copied.createMany(memories(copyAgent), 'facts');
    await inserted.createMany(memories(insertAgent), 'facts');

    const shape = async (store: SqlMemoryStore, agentId: string) =>
      (await store.get({ agentId, tableName: 'facts', count: 1_000 })).map(
        ({ id: _id, agentId: _agent, ...rest }) => rest,
      );
    expect(await shape(copied, copyAgent)).toEqual(await shape(inserted, insertAgent));
    expect(await copied.getById(copiedIds[0]!)).toMatchObject({ id: copiedIds[0] });
    expect(await copied.count({ agentId: copyAgent, tableName: 'facts' })).toBe(1_203);

    // The generated columns: found by a word and by its vector, with the same answers as inserted rows.
    const search = async (store: SqlMemoryStore, agentId: string) =>
      (
        await store.search({
          agentId,
          tableName: 'facts',
          query: 'ZX-42',
          embedding: Array.from({ length: DIMENSIONS }, (_, item) => Math.cos(item)),
          count: 5,
        })
      ).map((found) => [found.content.text, found.similarity]);
    const found = await search(copied, copyAgent);
    expect(found[0]![0]).toBe('fact 42: the code is ZX-42 — naïve café');
    expect(found).toEqual(await search(inserted, insertAgent));
  }, 120_000);
});
