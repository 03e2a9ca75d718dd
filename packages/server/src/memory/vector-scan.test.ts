import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { VectorCache, errorBound, type CacheFilter, type CacheRow } from './vector-cache';
import { VECTOR_SCAN_WASM } from './vector-scan-wasm';

describe('the vector scan module (issue 37)', () => {
  it('is the compilation of vector-scan.wat: `node scripts/build-vector-scan.mjs` writes the same file', async () => {
    const script = new URL('../../scripts/build-vector-scan.mjs', import.meta.url).href;
    const { compileVectorScan, sourceOf } = (await import(script)) as {
      compileVectorScan: () => Promise<Buffer>;
      sourceOf: (bytes: Buffer) => string;
    };
    const bytes = await compileVectorScan();
    expect(Buffer.from(VECTOR_SCAN_WASM, 'base64').equals(bytes)).toBe(true);
    const committed = await readFile(new URL('./vector-scan-wasm.ts', import.meta.url), 'utf8');
    expect(committed).toBe(sourceOf(bytes));
  });
});

/** A seeded generator of numbers in [0, 1) (mulberry32), so a failure is reproducible. */
function randomOf(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Row {
  id: string;
  room_id: string;
  entity_id: string;
  world_id: string | null;
  is_unique: boolean;
  embedding: number[];
}

/**
 * The search as it was before the SIMD scan, kept as the reference: every row, its float4 values multiplied and
 * summed in float64 in order and divided by the norms, ranked by similarity then id.
 */
function reference(
  rows: Iterable<Row>,
  query: readonly number[],
  filter: CacheFilter,
  threshold: number,
  limit: number,
): { id: string; similarity: number }[] {
  const q = query.map((value) => Math.fround(value));
  let qNorm = 0;
  for (const value of q) qNorm += value * value;
  qNorm = Math.sqrt(qNorm);
  const hits: { id: string; similarity: number }[] = [];
  for (const row of rows) {
    if (filter.roomId !== undefined && row.room_id !== filter.roomId) continue;
    if (filter.entityId !== undefined && row.entity_id !== filter.entityId) continue;
    if (filter.worldId !== undefined && row.world_id !== filter.worldId) continue;
    if (filter.unique !== undefined && row.is_unique !== filter.unique) continue;
    const x = row.embedding.map((value) => Math.fround(value));
    let norm = 0;
    for (const value of x) norm += value * value;
    const denominator = Math.sqrt(norm) * qNorm;
    if (denominator === 0) continue;
    let dot = 0;
    for (let item = 0; item < x.length; item += 1) dot += x[item]! * q[item]!;
    const similarity = dot / denominator;
    if (similarity < threshold) continue;
    hits.push({ id: row.id, similarity });
  }
  hits.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, limit);
}

/** The float32 number after `value` away from zero (its last bit changed). */
function nextUp(value: number): number {
  const bits = new Float32Array([value]);
  const ints = new Uint32Array(bits.buffer);
  ints[0]! += 1;
  return bits[0]!;
}

/**
 * A random table in a cache and in a map (the reference's rows): loaded rows, then appends past the first
 * capacity, updates, deletes (dead slots, compactions) and rows that are no longer a vector of its length.
 */
async function tableOf(random: () => number, dims: number, count: number, base: number[]) {
  const cache = new VectorCache();
  const rows = new Map<string, Row>();
  const vectorOf = (): number[] => {
    const kind = random();
    // Zero vectors (no similarity), duplicates and near-ties of `base` (last bits changed), else random.
    if (kind < 0.03) return new Array<number>(dims).fill(0);
    if (kind < 0.1 && rows.size > 0) {
      const some = [...rows.values()][Math.floor(random() * rows.size)]!;
      return [...some.embedding];
    }
    if (kind < 0.5) {
      return base.map((value) => {
        let changed = Math.fround(value);
        const steps = Math.floor(random() * 3);
        for (let step = 0; step < steps; step += 1) changed = nextUp(changed);
        return changed;
      });
    }
    if (kind < 0.55) return base.map((value) => value * (random() < 0.5 ? 1e-30 : 3e5));
    return Array.from({ length: dims }, () => random() * 2 - 1);
  };
  const rowOf = (index: number): Row => ({
    id: `id-${String(Math.floor(random() * count * 4)).padStart(6, '0')}-${index}`,
    room_id: `room-${Math.floor(random() * 3)}`,
    entity_id: `entity-${Math.floor(random() * 2)}`,
    world_id: random() < 0.3 ? null : `world-${Math.floor(random() * 2)}`,
    is_unique: random() < 0.5,
    embedding: vectorOf(),
  });
  const loaded: Row[] = [];
  for (let index = 0; index < count; index += 1) {
    const row = rowOf(index);
    loaded.push(row);
    rows.set(row.id, row);
  }
  const key = VectorCache.key('agent', 'facts', dims);
  const table = await cache.ensure(key, dims, () =>
    Promise.resolve(
      loaded.map((row): CacheRow => ({
        ...row,
        embedding: `{${row.embedding.map((value) => Math.fround(value)).join(',')}}`,
      })),
    ),
  );
  for (let index = count; index < count * 2; index += 1) {
    const change = random();
    const ids = [...rows.keys()];
    if (change < 0.5 || ids.length === 0) {
      const row = rowOf(index);
      rows.set(row.id, row);
      cache.put('agent', 'facts', row);
    } else if (change < 0.7) {
      const row = { ...rows.get(ids[Math.floor(random() * ids.length)]!)!, embedding: vectorOf() };
      rows.set(row.id, row);
      cache.put('agent', 'facts', row);
    } else if (change < 0.97) {
      const id = ids[Math.floor(random() * ids.length)]!;
      rows.delete(id);
      cache.remove('agent', 'facts', id);
    } else {
      // A vector of another length leaves this table.
      const id = ids[Math.floor(random() * ids.length)]!;
      rows.delete(id);
      cache.put('agent', 'facts', {
        ...rowOf(index),
        id,
        embedding: new Array<number>(dims + 1).fill(1),
      });
    }
  }
  return { cache, table, rows };
}

describe('the exact search with its SIMD pass (issue 37)', () => {
  const filters: CacheFilter[] = [
    {},
    { roomId: 'room-1' },
    { entityId: 'entity-0', unique: true },
    { worldId: 'world-1' },
    { roomId: 'room-2', entityId: 'entity-1', worldId: 'world-0', unique: false },
  ];

  for (const dims of [1, 3, 15, 16, 17, 33, 100, 384]) {
    it(`answers the ids and similarities of the float64 scan of every row (${dims} dims)`, async () => {
      const random = randomOf(dims * 7919);
      const base = Array.from({ length: dims }, () => random() * 2 - 1);
      const { cache, table, rows } = await tableOf(random, dims, dims > 100 ? 600 : 1500, base);
      let compared = 0;
      for (let round = 0; round < 40; round += 1) {
        // Queries near the base (the near-ties are then the top), random ones, and scaled ones.
        const query =
          round % 3 === 0
            ? Array.from({ length: dims }, () => random() * 2 - 1)
            : base.map((value) => value * (round % 3 === 1 ? 1 : 1e-20) + random() * 1e-3);
        const filter = filters[round % filters.length]!;
        const threshold = [-1, 0, 0.5, 0.999][round % 4]!;
        const limit = [1, 3, 10, 50, 5000][round % 5]!;
        const expected = reference(rows.values(), query, filter, threshold, limit);
        expect(cache.search(table, query, filter, threshold, limit)).toEqual(expected);
        compared += expected.length;
        const similarity = cache.similarityTo(table, query);
        for (const hit of expected) expect(similarity(hit.id)).toBe(hit.similarity);
      }
      expect(compared).toBeGreaterThan(0);
    });
  }

  it('answers among thousands of rows that differ in their last bits only', async () => {
    const dims = 384;
    const random = randomOf(37);
    const base = Array.from({ length: dims }, () => random() * 2 - 1);
    const cache = new VectorCache();
    const rows: Row[] = Array.from({ length: 3000 }, (_, index) => ({
      id: `near-${String(index).padStart(4, '0')}`,
      room_id: 'r',
      entity_id: 'e',
      world_id: null,
      is_unique: false,
      embedding: base.map((value) => {
        let changed = Math.fround(value);
        for (let step = Math.floor(random() * 4); step > 0; step -= 1) changed = nextUp(changed);
        return changed;
      }),
    }));
    const table = await cache.ensure(VectorCache.key('a', 't', dims), dims, () =>
      Promise.resolve(rows.map((row) => ({ ...row, embedding: `{${row.embedding.join(',')}}` }))),
    );
    for (let round = 0; round < 10; round += 1) {
      const query = base.map((value) => value + (random() - 0.5) * 1e-4);
      for (const limit of [1, 10, 100]) {
        expect(cache.search(table, query, {}, -1, limit)).toEqual(
          reference(rows, query, {}, -1, limit),
        );
      }
    }
  });

  it('has no similarity for a zero query or zero rows, and answers nothing for an empty table', async () => {
    const cache = new VectorCache();
    const table = await cache.ensure(VectorCache.key('a', 't', 3), 3, () =>
      Promise.resolve([
        {
          id: 'z',
          room_id: 'r',
          entity_id: 'e',
          world_id: null,
          is_unique: false,
          embedding: '{0,0,0}',
        },
      ]),
    );
    expect(cache.search(table, [1, 0, 0], {}, -1, 10)).toEqual([]);
    expect(cache.similarityTo(table, [1, 0, 0])('z')).toBeUndefined();
    cache.put('a', 't', {
      id: 'x',
      room_id: 'r',
      entity_id: 'e',
      world_id: null,
      is_unique: false,
      embedding: [1, 2, 3],
    });
    expect(cache.search(table, [0, 0, 0], {}, -1, 10)).toEqual([]);
    expect(cache.search(table, [1, 2, 3], {}, -1, 10).map((hit) => hit.id)).toEqual(['x']);
    const empty = await cache.ensure(VectorCache.key('a', 'u', 3), 3, () => Promise.resolve([]));
    expect(cache.search(empty, [1, 0, 0], {}, -1, 10)).toEqual([]);
  });

  it('answers as the plain scan for a NaN threshold and a limit that is not an integer', async () => {
    const random = randomOf(11);
    const base = Array.from({ length: 20 }, () => random() * 2 - 1);
    const { cache, table, rows } = await tableOf(random, 20, 300, base);
    const query = base.map((value) => value + random() * 0.1);
    expect(cache.search(table, query, {}, NaN, 10)).toEqual(
      reference(rows.values(), query, {}, NaN, 10),
    );
    expect(cache.search(table, query, {}, 0.2, 2.5)).toEqual(
      reference(rows.values(), query, {}, 0.2, 2.5),
    );
  });

  it('bounds the float32 error by (n + 16)·2⁻²³ of the norms', () => {
    expect(errorBound(384).relative).toBe(400 * 2 ** -23);
    expect(errorBound(384).absolute).toBe(400 * 2 ** -148);
  });
});

describe('the table read in binary (issue 37)', () => {
  /** `array_send` of a one-dimensional real[] (NULL for null), base64 as `encode(…, 'base64')` writes it. */
  const binaryOf = (values: (number | null)[]) => {
    const bytes = Buffer.alloc(20 + 8 * values.length);
    bytes.writeInt32BE(1, 0);
    bytes.writeInt32BE(values.includes(null) ? 1 : 0, 4);
    bytes.writeInt32BE(700, 8);
    bytes.writeInt32BE(values.length, 12);
    bytes.writeInt32BE(1, 16);
    let at = 20;
    for (const value of values) {
      if (value === null) {
        bytes.writeInt32BE(-1, at);
        at += 4;
      } else {
        bytes.writeInt32BE(4, at);
        bytes.writeFloatBE(value, at + 4);
        at += 8;
      }
    }
    return bytes.subarray(0, at).toString('base64').replace(/.{76}/g, '$&\n');
  };
  const row = (id: string, embedding: string): CacheRow => ({
    id,
    room_id: 'r',
    entity_id: 'e',
    world_id: null,
    is_unique: false,
    embedding,
  });

  it('holds the same vectors as the text of the same real[]', async () => {
    const random = randomOf(5);
    const vectors = Array.from({ length: 50 }, () =>
      Array.from({ length: 40 }, () => Math.fround(random() * 2 - 1)),
    );
    const cache = new VectorCache();
    const text = await cache.ensure(VectorCache.key('a', 'text', 40), 40, () =>
      Promise.resolve(vectors.map((vector, index) => row(`v${index}`, `{${vector.join(',')}}`))),
    );
    const binary = await cache.ensure(VectorCache.key('a', 'binary', 40), 40, () =>
      Promise.resolve(vectors.map((vector, index) => row(`v${index}`, binaryOf(vector)))),
    );
    const query = vectors[7]!.map((value) => value + 0.1);
    expect(cache.search(binary, query, {}, -1, 50)).toEqual(cache.search(text, query, {}, -1, 50));
    expect(cache.search(binary, query, {}, -1, 50)).toHaveLength(50);
  });

  it('reads a NULL element as the text does (NaN), which the plain scan answers', async () => {
    const cache = new VectorCache();
    const table = await cache.ensure(VectorCache.key('a', 't', 3), 3, () =>
      Promise.resolve([row('n', binaryOf([1, null, 2])), row('x', binaryOf([1, 0, 2]))]),
    );
    expect(cache.similarityTo(table, [1, 0, 2])('n')).toBeNaN();
    // As the plain scan ranks a NaN: in slot order before the rows it cannot be compared with.
    expect(cache.search(table, [1, 0, 2], {}, -1, 10)).toEqual([
      { id: 'n', similarity: NaN },
      { id: 'x', similarity: cache.similarityTo(table, [1, 0, 2])('x') },
    ]);
  });
});
