import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { createServer, type ParleyServer } from '../create-server';

/**
 * PGlite's build of pgvector (`MEMORY_VECTOR_INDEX=hnsw`): loaded into the embedded database, the memory store
 * searches through its HNSW index, and finds what the exact search finds (recall@10 against a server with the
 * exact search, over the same memories and queries).
 */
const DIMENSIONS = 384;
const COUNT = 1_500;

/** A deterministic pseudo-random unit vector (xorshift). */
function vectorOf(seed: number): number[] {
  let state = (seed * 2654435761) >>> 0 || 1;
  const vector: number[] = [];
  for (let index = 0; index < DIMENSIONS; index += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    vector.push(((state >>> 0) / 4294967296) * 2 - 1);
  }
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

describe('PGlite with pgvector', () => {
  const servers: ParleyServer[] = [];
  let indexed: ParleyServer;
  let exact: ParleyServer;

  const start = async (pgvector: boolean) => {
    const server = createServer({
      port: 0,
      logger: createLogger('warn'),
      env: {},
      characters: [{ name: 'Ada' }],
      database: { kind: 'pglite', dataDir: 'memory', pgvector },
    });
    servers.push(server);
    await server.start();
    const agentId = server.agents.defaultAgent.agentId;
    const rows = Array.from({ length: COUNT }, (_, index) => ({
      agentId,
      entityId: agentId,
      roomId: `room-${index % 3}`,
      content: { text: `fragment ${index}` },
      embedding: vectorOf(index + 1),
    }));
    for (let from = 0; from < COUNT; from += 500)
      await server.memory.store.createMany(rows.slice(from, from + 500), 'fragments');
    return server;
  };

  beforeAll(async () => {
    [indexed, exact] = await Promise.all([start(true), start(false)]);
  }, 180_000);
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it('searches through the HNSW index and finds what the exact search finds', async () => {
    expect(indexed.memory.vectorSearch).toBe('pgvector');
    expect(exact.memory.vectorSearch).toBe('exact');
    let found = 0;
    const QUERIES = 20;
    for (let query = 0; query < QUERIES; query += 1) {
      const search = (server: ParleyServer) =>
        server.memory.store.search({
          agentId: server.agents.defaultAgent.agentId,
          tableName: 'fragments',
          embedding: vectorOf(1_000_000 + query),
          count: 10,
        });
      const [approximate, truth] = await Promise.all([search(indexed), search(exact)]);
      expect(approximate).toHaveLength(10);
      const truthTexts = new Set(truth.map((memory) => memory.content.text));
      found += approximate.filter((memory) => truthTexts.has(memory.content.text)).length;
      // The similarities it reports are the same cosines.
      const byText = new Map(truth.map((memory) => [memory.content.text, memory.similarity!]));
      for (const memory of approximate) {
        const same = byText.get(memory.content.text);
        if (same !== undefined) expect(memory.similarity).toBeCloseTo(same, 5);
      }
    }
    expect(found / (QUERIES * 10)).toBeGreaterThanOrEqual(0.95);
  });
});
