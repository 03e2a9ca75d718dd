import { VECTOR_SCAN_WASM } from './vector-scan-wasm';

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
  /**
   * `capacity × stride` values, a view of the scan's memory (renewed when it grows); slots `[0, length)` are used.
   * Each row is its `dimensions` float4 values, then zeros up to `stride` (a multiple of 16).
   */
  vectors: Float32Array;
  norms: Float64Array;
  dimensions: number;
  stride: number;
  /** The table's own instance of the SIMD scan, whose memory holds the vectors from byte 0. */
  scan: Scan;
  /** Slots used, live or dead. */
  length: number;
  dead: number;
  /** The slot of each live id. */
  slots: Map<string, number>;
}

/** A table of the cache, as {@link VectorCache.ensure} answers it for a search. */
export type VectorTable = CachedTable;

/**
 * A row as the cache is loaded with: `embedding` as PostgreSQL's text of a `real[]` (`{1,0.5}`), or as the base64 of
 * its binary form (`encode(array_send(embedding), 'base64')`: no float formatting nor parsing, the float4 bytes).
 */
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

  /**
   * Starts reading the table of `key` unless it is loaded or being read (see {@link ensure}): what a write to a
   * table not loaded calls, so that this process's next search does not read it. A failed read is forgotten (the
   * next search reads again).
   */
  warm(key: string, dimensions: number, read: () => Promise<readonly CacheRow[]>): void {
    if (this.#tables.has(key)) return;
    for (const load of this.#loads) if (load.key === key && !load.dropped) return;
    this.ensure(key, dimensions, read).catch(() => undefined);
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

  /**
   * The `limit` most similar ids at `threshold` or more, most similar first (ties: by id), with the similarities
   * {@link cosineAt} computes. The SIMD scan computes every row's dot product in float32, which only selects the
   * candidates: a row is rescored in float64 when its approximate cosine, widened by the bound of its error (see
   * {@link errorBound}), could still be in the top `limit` and at `threshold` or more; the answers are the exact
   * ones of those, ranked as {@link scalarSearch} ranks them.
   */
  search(
    table: VectorTable,
    query: readonly number[],
    filter: CacheFilter,
    threshold: number,
    limit: number,
  ): Hit[] {
    const q = queryOf(query);
    const { length, stride, norms } = table;
    if (length === 0 || limit <= 0 || q.norm === 0) return [];
    // A query or a row of infinite or NaN values has no bounded error, and a NaN threshold lets every row through:
    // the plain scan answers (never in practice).
    if (!Number.isFinite(q.norm) || Number.isNaN(threshold))
      return scalarSearch(table, q, filter, threshold, limit);
    const queryAt = norms.length * stride * 4;
    const outAt = queryAt + stride * 4;
    reserve(table, bytesFor(norms.length, stride));
    const buffer = table.scan.memory.buffer;
    const queryView = new Float32Array(buffer, queryAt, stride);
    queryView.set(q.values);
    queryView.fill(0, table.dimensions);
    table.scan.dots(0, length, stride, queryAt, outAt);
    const dots = new Float32Array(buffer, outAt, length);
    if (uppers.length < length) uppers = new Float64Array(Math.max(length, uppers.length * 2));
    const cut = candidates(table, dots, q.norm, filter, threshold, limit, uppers);
    if (Number.isNaN(cut)) return scalarSearch(table, q, filter, threshold, limit);
    return rescore(table, q, cut, threshold, limit, uppers);
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

type Hit = { id: string; similarity: number };

const better = (a: Hit, b: Hit) =>
  a.similarity > b.similarity || (a.similarity === b.similarity && a.id < b.id);

/** Puts `candidate` in its place in `top` (most similar first), which keeps at most `limit`. */
function insert(top: Hit[], candidate: Hit, limit: number): void {
  if (top.length === limit && !better(candidate, top[top.length - 1]!)) return;
  let at = top.length;
  while (at > 0 && better(candidate, top[at - 1]!)) at -= 1;
  top.splice(at, 0, candidate);
  if (top.length > limit) top.pop();
}

/** The search of every row in float64, in slot order: what the SIMD search answers, for any values. */
function scalarSearch(
  table: CachedTable,
  q: { values: Float64Array; norm: number },
  filter: CacheFilter,
  threshold: number,
  limit: number,
): Hit[] {
  const { ids, length } = table;
  const top: Hit[] = [];
  for (let row = 0; row < length; row += 1) {
    const id = ids[row];
    if (id === null || id === undefined) continue;
    if (filter.roomId !== undefined && table.rooms[row] !== filter.roomId) continue;
    if (filter.entityId !== undefined && table.entities[row] !== filter.entityId) continue;
    if (filter.worldId !== undefined && table.worlds[row] !== filter.worldId) continue;
    if (filter.unique !== undefined && table.uniques[row] !== filter.unique) continue;
    const similarity = cosineAt(table, row, q);
    if (similarity === undefined || similarity < threshold) continue;
    insert(top, { id, similarity }, limit);
  }
  return top;
}

/** The exact cosines of the rows whose upper bound is at least `cut`: the top `limit` at `threshold` or more. */
function rescore(
  table: CachedTable,
  q: { values: Float64Array; norm: number },
  cut: number,
  threshold: number,
  limit: number,
  uppers: Float64Array,
): Hit[] {
  const { ids, length } = table;
  const top: Hit[] = [];
  for (let row = 0; row < length; row += 1) {
    if (!(uppers[row]! >= cut)) continue;
    const similarity = cosineAt(table, row, q);
    if (similarity === undefined || similarity < threshold) continue;
    insert(top, { id: ids[row]!, similarity }, limit);
  }
  return top;
}

const matches = (table: CachedTable, row: number, filter: CacheFilter) =>
  (filter.roomId === undefined || table.rooms[row] === filter.roomId) &&
  (filter.entityId === undefined || table.entities[row] === filter.entityId) &&
  (filter.worldId === undefined || table.worlds[row] === filter.worldId) &&
  (filter.unique === undefined || table.uniques[row] === filter.unique);

/**
 * The first pass over the float32 dot products: writes in `uppers` each row's upper bound of its cosine (NaN for a
 * row left out: dead, filtered out, a zero vector), and answers the least cosine a row of the top `limit` can have:
 * the limit-th largest lower bound (at least `limit` rows are at least that) or `threshold` if more. NaN when a
 * row's values are not finite (no bound: the plain scan answers).
 */
function candidates(
  table: CachedTable,
  dots: Float32Array,
  queryNorm: number,
  filter: CacheFilter,
  threshold: number,
  limit: number,
  uppers: Float64Array,
): number {
  const { ids, norms, length } = table;
  const { relative, absolute } = errorBound(table.dimensions);
  const filtered =
    filter.roomId !== undefined ||
    filter.entityId !== undefined ||
    filter.worldId !== undefined ||
    filter.unique !== undefined;
  // The `limit` largest lower bounds (a min-heap).
  const lows = new Float64Array(Math.min(Math.ceil(limit), length));
  const size = lows.length;
  let count = 0;
  let least = -Infinity;
  for (let row = 0; row < length; row += 1) {
    uppers[row] = NaN;
    if (ids[row] === null || (filtered && !matches(table, row, filter))) continue;
    const norm = norms[row]!;
    if (!Number.isFinite(norm)) return NaN;
    const denominator = norm * queryNorm;
    if (denominator === 0) continue;
    const dot = dots[row]!;
    let approximate = dot / denominator;
    let bound = relative + absolute / denominator;
    // An overflow in float32 (the float64 sum may not overflow): the row is always rescored.
    if (!Number.isFinite(dot)) {
      approximate = 0;
      bound = Infinity;
    }
    uppers[row] = approximate + bound;
    const lower = approximate - bound;
    if (count < size) {
      lows[count] = lower;
      count += 1;
      siftUp(lows, count - 1);
      if (count === size) least = lows[0]!;
    } else if (lower > least) {
      lows[0] = lower;
      siftDown(lows, count);
      least = lows[0]!;
    }
  }
  // A row of the exact top `limit` is at least the limit-th largest lower bound, and at least `threshold`.
  return count === limit ? Math.max(threshold, least) : threshold;
}

/** Each row's upper bound of its cosine, for the search under way (reused: the search is synchronous). */
let uppers = new Float64Array(0);

function siftUp(heap: Float64Array, at: number): void {
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (heap[parent]! <= heap[at]!) return;
    [heap[parent], heap[at]] = [heap[at]!, heap[parent]!];
    at = parent;
  }
}

function siftDown(heap: Float64Array, size: number): void {
  let at = 0;
  for (;;) {
    const left = at * 2 + 1;
    const right = left + 1;
    let least = at;
    if (left < size && heap[left]! < heap[least]!) least = left;
    if (right < size && heap[right]! < heap[least]!) least = right;
    if (least === at) return;
    [heap[least], heap[at]] = [heap[at]!, heap[least]!];
    at = least;
  }
}

/**
 * How far the SIMD pass's approximate cosine `a = fl32(x·q) / D` can be from {@link cosineAt}'s `e = fl64(x·q) / D`
 * (the same denominator `D = ‖x‖‖q‖` computed in float64): `|a − e| ≤ relative + absolute / D`.
 *
 * Both sums are of the same products of float32 values `x_i q_i` (the query is rounded by `Math.fround`, the rows
 * are float4). Let `s` be the exact sum and `S = Σ|x_i q_i| ≤ ‖x‖‖q‖` (Cauchy–Schwarz), `n` the dimensions and
 * `u = 2⁻²⁴` float32's unit roundoff. In float32, each product is rounded once and each term then goes through at
 * most `stride/16 − 1` additions in its lane's accumulator, 2 adding the four accumulators and 2 adding the lanes
 * (the padding adds zeros): `k ≤ stride/16 + 5 ≤ n + 16` roundings, so `|fl32 − s| ≤ γ_k·S` with
 * `γ_k = k·u / (1 − k·u)` (Higham, Accuracy and Stability of Numerical Algorithms, §3.1), as long as nothing
 * underflows; a product that underflows adds at most half the least subnormal, `2⁻¹⁵⁰`, which the following
 * roundings grow by at most `(1 + u)^k < 2`: at most `2·n_padded·2⁻¹⁵⁰ ≤ (n + 16)·2⁻¹⁴⁹` in all (additions that
 * underflow are exact). The float64 sum is within `γ_n·S` with `u = 2⁻⁵³`, so
 * `|fl32 − fl64| ≤ ((n + 16)·2⁻²⁴·(1 + 2⁻¹⁰) + n·2⁻⁵²)·‖x‖‖q‖ + (n + 16)·2⁻¹⁴⁹` for `n < 2¹³`. Divided by `D`
 * (within a few `2⁻⁵³` of `‖x‖‖q‖`), with the two divisions' roundings (`2⁻⁵³` each of a cosine ≤ 1 + 2⁻⁴⁰), it is
 * less than `(n + 16)·2⁻²³ + (n + 16)·2⁻¹⁴⁸ / D`: the bound used, twice the leading term, so its margin covers
 * every float64 rounding. An overflow (an infinite or NaN float32 sum) has no bound: such a row is always rescored.
 *
 * So a row's exact cosine is in `[a − b, a + b]`. At least `limit` rows have an exact cosine at least the limit-th
 * largest `a − b`, so a row of the exact top `limit` (ties included) has `a + b` at least that, and at least the
 * threshold: those are rescored in float64 and ranked, which gives the answers of the scan of every row in float64.
 */
export function errorBound(dimensions: number): { relative: number; absolute: number } {
  return { relative: (dimensions + 16) * 2 ** -23, absolute: (dimensions + 16) * 2 ** -148 };
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
  { dimensions, stride, vectors, norms }: CachedTable,
  slot: number,
  query: { values: Float64Array; norm: number },
): number | undefined {
  const denominator = norms[slot]! * query.norm;
  if (denominator === 0) return undefined;
  const offset = slot * stride;
  let dot = 0;
  for (let item = 0; item < dimensions; item += 1)
    dot += vectors[offset + item]! * query.values[item]!;
  return dot / denominator;
}

/** A table read from the database. */
function tableOf(dimensions: number, rows: readonly CacheRow[]): CachedTable {
  const table = emptyTable(dimensions, rows.length);
  for (const row of rows) {
    if (row.embedding.startsWith('{')) {
      const values = row.embedding.slice(1, -1).split(',');
      append(table, row, (item) => Number(values[item]));
    } else append(table, row, binaryValues(row.embedding));
  }
  return table;
}

/**
 * The values of a one-dimensional `real[]` in PostgreSQL's binary form, base64: a header (dimensions, flags, element
 * type, then length and lower bound of each dimension), then each element as its length (-1: NULL) and its float4,
 * big-endian.
 */
function binaryValues(base64: string): (item: number) => number {
  const bytes = Buffer.from(base64, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = 12 + 8 * view.getInt32(0);
  // The usual case: every element a float4, 8 bytes apart.
  let regular = true;
  for (let at = start; at + 4 <= bytes.byteLength && regular; at += 8)
    regular = view.getInt32(at) === 4;
  if (regular) return (item) => view.getFloat32(start + 8 * item + 4);
  const offsets: number[] = [];
  for (let at = start; at + 4 <= bytes.byteLength;) {
    const length = view.getInt32(at);
    offsets.push(length < 0 ? -1 : at + 4);
    at += 4 + Math.max(length, 0);
  }
  return (item) => {
    const offset = offsets[item];
    return offset === undefined || offset < 0 ? NaN : view.getFloat32(offset);
  };
}

function emptyTable(dimensions: number, capacity: number): CachedTable {
  const stride = Math.ceil(dimensions / 16) * 16;
  const table: CachedTable = {
    ids: [],
    rooms: [],
    entities: [],
    worlds: [],
    uniques: [],
    vectors: new Float32Array(0),
    norms: new Float64Array(Math.max(capacity, 16)),
    dimensions,
    stride,
    scan: newScan(),
    length: 0,
    dead: 0,
    slots: new Map(),
  };
  reserve(table, bytesFor(table.norms.length, stride));
  return table;
}

/** What is used of WebAssembly (the lib of this package's TypeScript has no WebAssembly types). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: Wasm };

/** The SIMD scan's instance of a table: its memory, and its function. */
interface Scan {
  memory: WasmMemory;
  /** Writes at `out` the float32 dot product with the `stride` floats at `query` of `count` rows from `rows`. */
  dots: (rows: number, count: number, stride: number, query: number, out: number) => void;
}

/** The scan's module, compiled at the first table (349 bytes, from vector-scan.wat). */
let scanModule: object | undefined;

function newScan(): Scan {
  const first = scanModule === undefined;
  scanModule ??= new wasm.Module(Buffer.from(VECTOR_SCAN_WASM, 'base64'));
  const { exports } = new wasm.Instance(scanModule, {});
  if (first) warmUp();
  return { memory: exports.memory as WasmMemory, dots: exports.dots as Scan['dots'] };
}

/**
 * Searches a small table of its own a few times when the first table is made (a load, or a write warming one: not a
 * search), so that the search's loops are compiled by then: the first search of 100,000 rows took about 100 ms
 * more than the next ones in the interpreter.
 */
function warmUp(): void {
  const cache = new VectorCache();
  const table = emptyTable(16, 2048);
  for (let row = 0; row < 2048; row += 1) {
    append(
      table,
      { id: `w${row}`, room_id: 'r', entity_id: 'e', world_id: null, is_unique: false },
      (item) => Math.sin(row * 16 + item),
    );
  }
  for (let round = 0; round < 100; round += 1) {
    const query = Array.from({ length: 16 }, (_, item) => Math.cos(round * 16 + item));
    cache.search(table, query, round % 2 === 0 ? {} : { roomId: 'r' }, -1, 10);
  }
}

/**
 * The memory of a table of `capacity` rows: the rows, then the search's query and its dot products (so a search
 * never grows the memory: a grow can take tens of milliseconds at 100,000 rows).
 */
const bytesFor = (capacity: number, stride: number) => (capacity * (stride + 1) + stride) * 4;

/** Grows the table's memory to `bytes` at least (a grow detaches the view of the vectors: it is renewed). */
function reserve(table: CachedTable, bytes: number): void {
  const { memory } = table.scan;
  const size = memory.buffer.byteLength;
  if (size < bytes) memory.grow(Math.ceil((bytes - size) / 65_536));
  if (table.vectors.buffer !== memory.buffer) table.vectors = new Float32Array(memory.buffer);
}

/** Writes a row's vector (as float4) and norm in `slot`. */
function setVector(table: CachedTable, slot: number, value: (item: number) => number): void {
  const { dimensions, stride, vectors } = table;
  const offset = slot * stride;
  let norm = 0;
  for (let item = 0; item < dimensions; item += 1) {
    const stored = Math.fround(value(item));
    vectors[offset + item] = stored;
    norm += stored * stored;
  }
  vectors.fill(0, offset + dimensions, offset + stride);
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
    const norms = new Float64Array(table.norms.length * 2);
    norms.set(table.norms);
    table.norms = norms;
    reserve(table, bytesFor(norms.length, table.stride));
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
  const { stride, vectors, norms } = table;
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
      vectors.copyWithin(to * stride, from * stride, (from + 1) * stride);
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
