import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createServer } from '@parley/server';
import { createPostgresDatabase } from '../lib/harness.mjs';
import { summarize } from '../lib/stats.mjs';

const DIMENSIONS = 384;
const COUNT = Number(process.env.BENCH_MEMORIES ?? 100_000);
const BATCH = 1_000;
const QUERIES = 20;
/**
 * Memories of the PGlite-with-pgvector search (`BENCH_HNSW_MEMORIES`): fewer, as PGlite keeps the HNSW index at
 * about 100 inserts a second (100,000 would take a quarter of an hour to store).
 */
const HNSW_COUNT = Number(process.env.BENCH_HNSW_MEMORIES ?? 2_000);

/** A deterministic pseudo-random unit vector (xorshift), so every run and database stores the same ones. */
function vectorOf(seed) {
  let state = (seed * 2654435761) >>> 0 || 1;
  const vector = new Array(DIMENSIONS);
  let norm = 0;
  for (let index = 0; index < DIMENSIONS; index += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const value = ((state >>> 0) / 4294967296) * 2 - 1;
    vector[index] = value;
    norm += value * value;
  }
  norm = Math.sqrt(norm);
  return vector.map((value) => value / norm);
}

/**
 * A server in this process over a fresh PGlite folder or PostgreSQL database; the agent's runtime memory.
 * `restart()` stops it and starts another over the same database (the agent is the same).
 */
async function startServer(kind) {
  let location;
  let dispose;
  if (kind === 'postgres') {
    const database = await createPostgresDatabase();
    location = { kind: 'postgres', url: database.url };
    dispose = () => database.drop();
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'parley-bench-memory-'));
    // `pglite-hnsw`: PGlite with its build of pgvector loaded (MEMORY_VECTOR_INDEX=hnsw).
    location = {
      kind: 'pglite',
      dataDir: dir,
      ...(kind === 'pglite-hnsw' ? { pgvector: true } : {}),
    };
    dispose = () => rm(dir, { recursive: true, force: true });
  }
  return serverOver(location, dispose);
}

async function serverOver(location, dispose) {
  const server = createServer({
    port: 0,
    logger: createLogger('warn'),
    env: {},
    characters: [{ name: 'Bench' }],
    database: location,
  });
  await server.start();
  const agentId = server.agents.defaultAgent.agentId;
  return {
    server,
    agentId,
    async stop() {
      await server.stop();
      await dispose();
    },
    async restart() {
      await server.stop();
      return serverOver(location, dispose);
    },
  };
}

const rss = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss;
};

/** Stores `count` fragments of 384 dimensions (vectors made beforehand: embedding time excluded). */
async function ingest(store, agentId, count = COUNT) {
  const started = process.hrtime.bigint();
  const before = rss();
  for (let start = 0; start < count; start += BATCH) {
    const batch = [];
    for (let index = start; index < Math.min(count, start + BATCH); index += 1) {
      batch.push({
        agentId,
        entityId: agentId,
        roomId: `room-${index % 10}`,
        content: {
          text: `fragment ${index} of document ${Math.floor(index / 50)}: code K${index}`,
        },
        embedding: vectorOf(index + 1),
      });
    }
    await store.createMany(batch, 'fragments');
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { perSecond: count / seconds, rssGrowth: (rss() - before) / (count / 100_000) };
}

/** Search latencies (ms) and each query's top 10 (their texts). */
async function searches(store, agentId) {
  const times = [];
  const tops = [];
  for (let query = 0; query < QUERIES; query += 1) {
    const embedding = vectorOf(10_000_000 + query);
    const started = process.hrtime.bigint();
    const found = await store.search({ agentId, tableName: 'fragments', embedding, count: 10 });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    tops.push(found.map((memory) => memory.content.text));
  }
  return { stats: summarize(times), tops };
}

/**
 * Searches after writes, the load that was slow when the cached table was dropped at each write: QUERIES rounds,
 * each a create, an update of an embedding and a delete (of a memory created in an earlier round), then a timed
 * top-10 search; then writes and searches released together, whose searches are timed too.
 */
async function searchesAfterWrites(store, agentId) {
  const times = [];
  const created = [];
  const write = async (round) => {
    const index = COUNT + round;
    created.push(
      await store.create(
        {
          agentId,
          entityId: agentId,
          roomId: `room-${index % 10}`,
          content: { text: `written ${index}` },
          embedding: vectorOf(index + 1),
        },
        'fragments',
      ),
    );
    if (created.length > 1) {
      await store.update(
        { id: created[created.length - 2], embedding: vectorOf(20_000_000 + round) },
        agentId,
      );
    }
    if (created.length > 2) await store.delete(created.shift(), agentId);
  };
  const timedSearch = async (query) => {
    const started = process.hrtime.bigint();
    await store.search({
      agentId,
      tableName: 'fragments',
      embedding: vectorOf(10_000_000 + query),
      count: 10,
    });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  };
  for (let round = 0; round < QUERIES; round += 1) {
    await write(round);
    await timedSearch(round);
  }
  for (let round = QUERIES; round < QUERIES * 2; round += 1) {
    await Promise.all([write(round), timedSearch(round)]);
  }
  return summarize(times);
}

/** The same exact cosine search in plain JavaScript over a Float32Array in memory: what Node allows at best. */
/** The texts of each query's exact top 10 over the first `count` fragments, computed here in float64. */
function exactTopsOf(count) {
  const vectors = Array.from({ length: count }, (_, row) => vectorOf(row + 1));
  return Array.from({ length: QUERIES }, (_, query) => {
    const q = vectorOf(10_000_000 + query);
    const scores = vectors.map((vector) =>
      vector.reduce((sum, value, index) => sum + value * q[index], 0),
    );
    return Array.from(scores.keys())
      .sort((a, b) => scores[b] - scores[a])
      .slice(0, 10)
      .map((row) => `fragment ${row} of document ${Math.floor(row / 50)}: code K${row}`);
  });
}

function jsExactLimit() {
  const matrix = new Float32Array(COUNT * DIMENSIONS);
  for (let row = 0; row < COUNT; row += 1) matrix.set(vectorOf(row + 1), row * DIMENSIONS);
  const times = [];
  for (let query = 0; query < QUERIES; query += 1) {
    const q = Float32Array.from(vectorOf(10_000_000 + query));
    const started = process.hrtime.bigint();
    const scores = new Float64Array(COUNT);
    for (let row = 0; row < COUNT; row += 1) {
      let sum = 0;
      const offset = row * DIMENSIONS;
      for (let index = 0; index < DIMENSIONS; index += 1) sum += matrix[offset + index] * q[index];
      scores[row] = sum;
    }
    const top = Array.from(scores.keys())
      .sort((a, b) => scores[b] - scores[a])
      .slice(0, 10);
    if (top.length !== 10) throw new Error('no result');
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return summarize(times);
}

/**
 * Memory search: COUNT memories of 384 dimensions of one agent's table, then QUERIES top-10 searches: exact
 * (PGlite; PostgreSQL without pgvector) and pgvector's HNSW index where the database has it, with recall@10 of
 * the indexed search against the exact one; then searches after writes (a create, an update, a delete, then a search;
 * then writes and searches released together); on PGlite, the first search after a restart of the server over the same
 * folder, which reads the table into memory (a process that writes a table reads it at that write instead). The limit:
 * the same exact scan in plain JavaScript over memory.
 */
export const memorySearch = {
  id: 'memory-search',
  title: `memory search (${COUNT.toLocaleString('en')} memories, ${DIMENSIONS} dims)`,
  run: async () => {
    const rows = [];
    const notes = [];
    const limit = jsExactLimit();
    for (const kind of ['pglite', 'pglite-hnsw', 'postgres']) {
      let running;
      try {
        running = await startServer(kind);
      } catch (error) {
        notes.push(`${kind}: not run (${error.message})`);
        continue;
      }
      try {
        const { store } = running.server.memory;
        const hnsw = kind === 'pglite-hnsw';
        const stored = await ingest(store, running.agentId, hnsw ? HNSW_COUNT : COUNT);
        const mode = running.server.memory.vectorSearch;
        const measured = await searches(store, running.agentId);
        if (hnsw) {
          if (mode !== 'pgvector') throw new Error(`pgvector was not loaded (${mode} search)`);
          const size = HNSW_COUNT.toLocaleString('en');
          rows.push(
            {
              figure: `${kind} search p50 (${size} memories)`,
              value: measured.stats.p50,
              unit: 'ms',
            },
            {
              figure: `${kind} search p99 (${size} memories)`,
              value: measured.stats.p99,
              unit: 'ms',
            },
          );
          const exactTops = exactTopsOf(HNSW_COUNT);
          let found = 0;
          measured.tops.forEach((top, query) => {
            const exact = new Set(exactTops[query]);
            found += top.filter((text) => exact.has(text)).length;
          });
          rows.push({
            figure: `${kind} recall@10 against the exact search`,
            value: found / (QUERIES * 10),
            unit: '',
            target: ['>=', 0.95],
          });
          notes.push(
            `pglite-hnsw (MEMORY_VECTOR_INDEX=hnsw): PGlite's pgvector and its HNSW index, ${HNSW_COUNT} memories (BENCH_HNSW_MEMORIES); ${Math.round(stored.perSecond)} fragments/s stored with the index kept (memory-ingest has the exact search's)`,
          );
          continue;
        }
        rows.push(
          {
            figure: `${kind} ${mode} search p50`,
            value: measured.stats.p50,
            unit: 'ms',
            limit: limit.p50,
            target: ['<', 15],
          },
          {
            figure: `${kind} ${mode} search p99`,
            value: measured.stats.p99,
            unit: 'ms',
            limit: limit.p99,
            target: ['<', 50],
          },
        );
        const mixed = await searchesAfterWrites(store, running.agentId);
        rows.push(
          {
            figure: `${kind} ${mode} search after writes p50`,
            value: mixed.p50,
            unit: 'ms',
            limit: limit.p50,
            target: ['<', 15],
          },
          {
            figure: `${kind} ${mode} search after writes p99`,
            value: mixed.p99,
            unit: 'ms',
            limit: limit.p99,
            target: ['<', 50],
          },
        );
        notes.push(`${kind}: vector search ${mode}`);
        if (kind === 'pglite') {
          // The table is read from the database at the first search of a process that has not written it.
          running = await running.restart();
          const started = process.hrtime.bigint();
          await running.server.memory.store.search({
            agentId: running.agentId,
            tableName: 'fragments',
            embedding: vectorOf(10_000_000),
            count: 10,
          });
          rows.push({
            figure: `${kind} first search after a restart (table load)`,
            value: Number(process.hrtime.bigint() - started) / 1e6,
            unit: 'ms',
          });
        }
      } catch (error) {
        // One database failing (a PostgreSQL search past its timeout on a loaded machine) leaves the other's figures.
        notes.push(`${kind}: failed (${error.message})`);
      } finally {
        await running.stop();
      }
    }
    notes.push('limit: the same exact scan in plain JavaScript over a Float32Array in memory');
    return { rows, notes };
  },
};

/** Memory ingest: fragments stored per second (embedding excluded) and RSS growth per 100,000. */
export const memoryIngest = {
  id: 'memory-ingest',
  title: `memory ingest (${COUNT.toLocaleString('en')} fragments, ${DIMENSIONS} dims)`,
  run: async () => {
    const rows = [];
    const notes = [];
    for (const kind of ['pglite', 'postgres']) {
      let running;
      try {
        running = await startServer(kind);
      } catch (error) {
        notes.push(`${kind}: not run (${error.message})`);
        continue;
      }
      try {
        const { perSecond, rssGrowth } = await ingest(running.server.memory.store, running.agentId);
        rows.push(
          {
            figure: `${kind} fragments stored`,
            value: perSecond,
            unit: '/s',
            target: ['>=', 2000],
          },
          { figure: `${kind} RSS growth per 100,000`, value: rssGrowth / 1024 / 1024, unit: 'MB' },
        );
      } finally {
        await running.stop();
      }
    }
    return { rows, notes };
  },
};
