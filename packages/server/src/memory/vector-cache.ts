/** One agent's table of vectors in memory: row metadata for the filters, the vectors and their norms. */
interface CachedTable {
  ids: string[];
  rooms: string[];
  entities: string[];
  worlds: (string | null)[];
  uniques: boolean[];
  vectors: Float32Array;
  norms: Float64Array;
  dimensions: number;
}

/** A row as the cache is loaded with: `embedding` as PostgreSQL's text of a `real[]`. */
export interface CacheRow {
  id: string;
  room_id: string;
  entity_id: string;
  world_id: string | null;
  is_unique: boolean;
  embedding: string;
}

/** What a cached search matches: the store's filters. */
export interface CacheFilter {
  roomId?: string;
  entityId?: string;
  worldId?: string;
  unique?: boolean;
}

/** Most tables kept; the least recently loaded goes first. */
const MAX_TABLES = 64;

/**
 * The exact vector search of a database only this process writes (the embedded PGlite): each agent's table of
 * vectors is read once into a Float32Array and scanned in JavaScript (a tight loop, no SQL per element), and
 * dropped at any write to it. The cosine is computed as the SQL search computes it (float4 values, float64
 * arithmetic, in order), so the answers are the same.
 */
export class VectorCache {
  readonly #tables = new Map<string, CachedTable>();

  static key(agentId: string, tableName: string, dimensions: number): string {
    return `${agentId}\u0000${tableName}\u0000${dimensions}`;
  }

  has(key: string): boolean {
    return this.#tables.has(key);
  }

  /** Drops an agent's tables (all of them when `tableName` is not known). */
  invalidate(agentId: string, tableName?: string): void {
    const prefix =
      tableName === undefined ? `${agentId}\u0000` : `${agentId}\u0000${tableName}\u0000`;
    for (const key of [...this.#tables.keys()])
      if (key.startsWith(prefix)) this.#tables.delete(key);
  }

  clear(): void {
    this.#tables.clear();
  }

  load(key: string, dimensions: number, rows: readonly CacheRow[]): void {
    const vectors = new Float32Array(rows.length * dimensions);
    const norms = new Float64Array(rows.length);
    rows.forEach((row, index) => {
      const values = row.embedding.slice(1, -1).split(',');
      const offset = index * dimensions;
      let norm = 0;
      for (let item = 0; item < dimensions; item += 1) {
        const value = Math.fround(Number(values[item]));
        vectors[offset + item] = value;
        norm += value * value;
      }
      norms[index] = Math.sqrt(norm);
    });
    if (this.#tables.size >= MAX_TABLES) this.#tables.delete(this.#tables.keys().next().value!);
    this.#tables.set(key, {
      ids: rows.map((row) => row.id),
      rooms: rows.map((row) => row.room_id),
      entities: rows.map((row) => row.entity_id),
      worlds: rows.map((row) => row.world_id),
      uniques: rows.map((row) => row.is_unique),
      vectors,
      norms,
      dimensions,
    });
  }

  /** The `limit` most similar ids at `threshold` or more, most similar first (ties: by id). */
  search(
    key: string,
    query: readonly number[],
    filter: CacheFilter,
    threshold: number,
    limit: number,
  ): { id: string; similarity: number }[] {
    const table = this.#tables.get(key);
    if (!table) return [];
    const { dimensions, vectors, norms, ids } = table;
    const q = Float64Array.from(query, (value) => Math.fround(value));
    let queryNorm = 0;
    for (const value of q) queryNorm += value * value;
    queryNorm = Math.sqrt(queryNorm);
    const top: { id: string; similarity: number }[] = [];
    const better = (a: { id: string; similarity: number }, b: { id: string; similarity: number }) =>
      a.similarity > b.similarity || (a.similarity === b.similarity && a.id < b.id);
    for (let row = 0; row < ids.length; row += 1) {
      if (filter.roomId !== undefined && table.rooms[row] !== filter.roomId) continue;
      if (filter.entityId !== undefined && table.entities[row] !== filter.entityId) continue;
      if (filter.worldId !== undefined && table.worlds[row] !== filter.worldId) continue;
      if (filter.unique !== undefined && table.uniques[row] !== filter.unique) continue;
      const denominator = norms[row]! * queryNorm;
      if (denominator === 0) continue;
      const offset = row * dimensions;
      let dot = 0;
      for (let item = 0; item < dimensions; item += 1) dot += vectors[offset + item]! * q[item]!;
      const candidate = { id: ids[row]!, similarity: dot / denominator };
      if (candidate.similarity < threshold) continue;
      if (top.length === limit && !better(candidate, top[top.length - 1]!)) continue;
      let at = top.length;
      while (at > 0 && better(candidate, top[at - 1]!)) at -= 1;
      top.splice(at, 0, candidate);
      if (top.length > limit) top.pop();
    }
    return top;
  }
}
