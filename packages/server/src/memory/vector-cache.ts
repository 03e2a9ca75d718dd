/**
 * One agent's table of vectors in memory: row metadata for the filters, the vectors and their norms, in slots.
 * A deleted row leaves a dead slot (`ids[slot] === null`) the scan skips; appends grow the arrays geometrically.
 */
interface CachedTable {
  ids: (string | null)[];
  rooms: string[];
  entities: string[];
  worlds: (string | null)[];
  uniques: boolean[];
  /** `capacity × dimensions` values; slots `[0, length)` are used. */
  vectors: Float32Array;
  norms: Float64Array;
  dimensions: number;
  /** Slots used, live or dead. */
  length: number;
  dead: number;
  /** The slot of each live id. */
  slots: Map<string, number>;
}

/** A table of the cache, as {@link VectorCache.ensure} answers it for a search. */
export type VectorTable = CachedTable;

/** A row as the cache is loaded with: `embedding` as PostgreSQL's text of a `real[]`. */
export interface CacheRow {
  id: string;
  room_id: string;
  entity_id: string;
  world_id: string | null;
  is_unique: boolean;
  embedding: string;
}

/** A row as a write gives it to the cache: its vector as the numbers written (stored as float4). */
export interface CacheWrite {
  id: string;
  room_id: string;
  entity_id: string;
  world_id: string | null;
  is_unique: boolean;
  embedding: readonly number[] | null;
}

/** What a cached search matches: the store's filters. */
export interface CacheFilter {
  roomId?: string;
  entityId?: string;
  worldId?: string;
  unique?: boolean;
}

/** A write as it is replayed on a table loaded while it happened. */
type Change =
  | { kind: 'put'; agentId: string; tableName: string; row: CacheWrite }
  | { kind: 'remove'; agentId: string; tableName: string; id: string };

/** A load in flight: the writes made meanwhile, replayed on what it read; `dropped` when a bulk write came. */
interface Load {
  key: string;
  promise: Promise<CachedTable>;
  changes: Change[];
  dropped: boolean;
}

/** Most tables kept; the least recently loaded goes first. */
const MAX_TABLES = 64;
/** A table is compacted when it has more dead slots than this and than live ones. */
const MIN_COMPACTION = 64;

const prefixOf = (agentId: string, tableName?: string) =>
  tableName === undefined ? `${agentId}\u0000` : `${agentId}\u0000${tableName}\u0000`;

/**
 * The exact vector search of a database only this process writes (the embedded PGlite): each agent's table of
 * vectors is read once into a Float32Array and scanned in JavaScript (a tight loop, no SQL per element), then kept
 * up to date by the store's writes: a created row is appended, an updated one replaced in its slot, a deleted one
 * left as a dead slot (compacted when they outnumber the live ones); bulk deletes drop the agent's tables. A write
 * to a table not loaded does nothing (the next search reads it); a write made while a table is being read is
 * replayed on what was read, so it is never lost. The cosine is computed as the SQL search computes it (float4
 * values, float64 arithmetic, in order), so the answers are the same.
 */
export class VectorCache {
  readonly #tables = new Map<string, CachedTable>();
  readonly #loads = new Set<Load>();

  static key(agentId: string, tableName: string, dimensions: number): string {
    return `${agentId}\u0000${tableName}\u0000${dimensions}`;
  }

  has(key: string): boolean {
    return this.#tables.has(key);
  }

  /** Drops an agent's tables (all of them when `tableName` is not known), and what is being read of them. */
  invalidate(agentId: string, tableName?: string): void {
    const prefix = prefixOf(agentId, tableName);
    for (const key of [...this.#tables.keys()])
      if (key.startsWith(prefix)) this.#tables.delete(key);
    for (const load of this.#loads) if (load.key.startsWith(prefix)) load.dropped = true;
  }

  clear(): void {
    this.#tables.clear();
    for (const load of this.#loads) load.dropped = true;
  }

  /**
   * The table of `key`, read with `read` unless it is loaded or being read (then that read is waited for).
   * Writes made while `read` runs are applied to what it read. When a bulk write drops the table meanwhile, what
   * was read still answers the searches that waited for it, but is not kept.
   */
  async ensure(
    key: string,
    dimensions: number,
    read: () => Promise<readonly CacheRow[]>,
  ): Promise<VectorTable> {
    const loaded = this.#tables.get(key);
    if (loaded) return loaded;
    for (const load of this.#loads) if (load.key === key && !load.dropped) return load.promise;
    const load: Load = {
      key,
      // Replaced below, before anything else runs: the read's changes are collected from its start.
      promise: Promise.resolve(emptyTable(dimensions, 0)),
      changes: [],
      dropped: false,
    };
    this.#loads.add(load);
    load.promise = (async () => {
      try {
        const table = tableOf(dimensions, await read());
        for (const change of load.changes) applyTo(table, key, change);
        if (!load.dropped) {
          if (this.#tables.size >= MAX_TABLES)
            this.#tables.delete(this.#tables.keys().next().value!);
          this.#tables.set(key, table);
        }
        return table;
      } finally {
        this.#loads.delete(load);
      }
    })();
    return load.promise;
  }

  /** A row written (created or updated): put in its table's slot if it has one, else appended. */
  put(agentId: string, tableName: string, row: CacheWrite): void {
    this.#change({ kind: 'put', agentId, tableName, row });
  }

  /** A row deleted: its slot is marked dead. */
  remove(agentId: string, tableName: string, id: string): void {
    this.#change({ kind: 'remove', agentId, tableName, id });
  }

  #change(change: Change): void {
    if (this.#tables.size === 0 && this.#loads.size === 0) return;
    const prefix = prefixOf(change.agentId, change.tableName);
    for (const [key, table] of this.#tables)
      if (key.startsWith(prefix)) applyTo(table, key, change);
    for (const load of this.#loads) if (load.key.startsWith(prefix)) load.changes.push(change);
  }

  /** The `limit` most similar ids at `threshold` or more, most similar first (ties: by id). */
  search(
    table: VectorTable,
    query: readonly number[],
    filter: CacheFilter,
    threshold: number,
    limit: number,
  ): { id: string; similarity: number }[] {
    const { ids, length } = table;
    const q = queryOf(query);
    const top: { id: string; similarity: number }[] = [];
    const better = (a: { id: string; similarity: number }, b: { id: string; similarity: number }) =>
      a.similarity > b.similarity || (a.similarity === b.similarity && a.id < b.id);
    for (let row = 0; row < length; row += 1) {
      const id = ids[row];
      if (id === null || id === undefined) continue;
      if (filter.roomId !== undefined && table.rooms[row] !== filter.roomId) continue;
      if (filter.entityId !== undefined && table.entities[row] !== filter.entityId) continue;
      if (filter.worldId !== undefined && table.worlds[row] !== filter.worldId) continue;
      if (filter.unique !== undefined && table.uniques[row] !== filter.unique) continue;
      const similarity = cosineAt(table, row, q);
      if (similarity === undefined || similarity < threshold) continue;
      const candidate = { id, similarity };
      if (top.length === limit && !better(candidate, top[top.length - 1]!)) continue;
      let at = top.length;
      while (at > 0 && better(candidate, top[at - 1]!)) at -= 1;
      top.splice(at, 0, candidate);
      if (top.length > limit) top.pop();
    }
    return top;
  }

  /**
   * The cosine similarity to `query` of a live row by id, as {@link search} computes it (none without its vector):
   * the query is prepared once for all the rows asked.
   */
  similarityTo(table: VectorTable, query: readonly number[]): (id: string) => number | undefined {
    const prepared = queryOf(query);
    return (id) => {
      const slot = table.slots.get(id);
      return slot === undefined ? undefined : cosineAt(table, slot, prepared);
    };
  }
}

/** A query vector as the rows are held (float4 values in float64 arithmetic), with its norm. */
function queryOf(query: readonly number[]): { values: Float64Array; norm: number } {
  const values = Float64Array.from(query, (value) => Math.fround(value));
  let norm = 0;
  for (const value of values) norm += value * value;
  return { values, norm: Math.sqrt(norm) };
}

/** The cosine of the row in `slot` and the query; none when either is a zero vector. */
function cosineAt(
  { dimensions, vectors, norms }: CachedTable,
  slot: number,
  query: { values: Float64Array; norm: number },
): number | undefined {
  const denominator = norms[slot]! * query.norm;
  if (denominator === 0) return undefined;
  const offset = slot * dimensions;
  let dot = 0;
  for (let item = 0; item < dimensions; item += 1)
    dot += vectors[offset + item]! * query.values[item]!;
  return dot / denominator;
}

/** A table read from the database. */
function tableOf(dimensions: number, rows: readonly CacheRow[]): CachedTable {
  const table = emptyTable(dimensions, rows.length);
  for (const row of rows) {
    const values = row.embedding.slice(1, -1).split(',');
    append(table, row, (item) => Number(values[item]));
  }
  return table;
}

function emptyTable(dimensions: number, capacity: number): CachedTable {
  return {
    ids: [],
    rooms: [],
    entities: [],
    worlds: [],
    uniques: [],
    vectors: new Float32Array(Math.max(capacity, 16) * dimensions),
    norms: new Float64Array(Math.max(capacity, 16)),
    dimensions,
    length: 0,
    dead: 0,
    slots: new Map(),
  };
}

/** Writes a row's vector (as float4) and norm in `slot`. */
function setVector(table: CachedTable, slot: number, value: (item: number) => number): void {
  const { dimensions, vectors } = table;
  const offset = slot * dimensions;
  let norm = 0;
  for (let item = 0; item < dimensions; item += 1) {
    const stored = Math.fround(value(item));
    vectors[offset + item] = stored;
    norm += stored * stored;
  }
  table.norms[slot] = Math.sqrt(norm);
}

function setFields(table: CachedTable, slot: number, row: Omit<CacheRow, 'embedding'>): void {
  table.ids[slot] = row.id;
  table.rooms[slot] = row.room_id;
  table.entities[slot] = row.entity_id;
  table.worlds[slot] = row.world_id;
  table.uniques[slot] = row.is_unique;
}

/** Appends a row, doubling the arrays when full. */
function append(
  table: CachedTable,
  row: Omit<CacheRow, 'embedding'>,
  value: (item: number) => number,
): void {
  const slot = table.length;
  if (slot === table.norms.length) {
    const vectors = new Float32Array(table.vectors.length * 2);
    vectors.set(table.vectors);
    const norms = new Float64Array(table.norms.length * 2);
    norms.set(table.norms);
    table.vectors = vectors;
    table.norms = norms;
  }
  setFields(table, slot, row);
  setVector(table, slot, value);
  table.slots.set(row.id, slot);
  table.length += 1;
}

/** Applies a write to a loaded table of `key` (`agentId`, `tableName`, dimensions). */
function applyTo(table: CachedTable, key: string, change: Change): void {
  if (!key.startsWith(prefixOf(change.agentId, change.tableName))) return;
  const id = change.kind === 'put' ? change.row.id : change.id;
  const slot = table.slots.get(id);
  const embedding = change.kind === 'put' ? change.row.embedding : null;
  if (change.kind === 'put' && embedding?.length === table.dimensions) {
    const value = (item: number) => embedding[item]!;
    if (slot === undefined) append(table, change.row, value);
    else {
      setFields(table, slot, change.row);
      setVector(table, slot, value);
    }
    return;
  }
  // Deleted, or no longer a vector of this length: the slot is dead.
  if (slot === undefined) return;
  table.ids[slot] = null;
  table.slots.delete(id);
  table.dead += 1;
  if (table.dead > MIN_COMPACTION && table.dead * 2 > table.length) compact(table);
}

/** Moves the live slots to the front, in order, and forgets the dead ones. */
function compact(table: CachedTable): void {
  const { dimensions, vectors, norms } = table;
  let to = 0;
  for (let from = 0; from < table.length; from += 1) {
    const id = table.ids[from];
    if (id === null || id === undefined) continue;
    if (to !== from) {
      table.ids[to] = id;
      table.rooms[to] = table.rooms[from]!;
      table.entities[to] = table.entities[from]!;
      table.worlds[to] = table.worlds[from]!;
      table.uniques[to] = table.uniques[from]!;
      vectors.copyWithin(to * dimensions, from * dimensions, (from + 1) * dimensions);
      norms[to] = norms[from]!;
      table.slots.set(id, to);
    }
    to += 1;
  }
  for (const list of [table.ids, table.rooms, table.entities, table.worlds, table.uniques])
    list.length = to;
  table.length = to;
  table.dead = 0;
}
