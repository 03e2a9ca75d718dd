import { randomUUID } from 'node:crypto';
import { ParleyError } from '@parley/core';
import { LRUCache } from 'lru-cache';
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { wordsOf } from '../models/embeddings/hash-embeddings';
import type { DatabaseSchema } from '../storage/schema';
import { encodeMemoryCopy, MEMORY_COPY_COLUMNS } from './memory-copy';
import type { MemoryTable } from './memory-tables';
import { VectorCache, type CacheRow, type VectorTable } from './vector-cache';
import type {
  CachedEmbeddingQuery,
  MemoryFilter,
  MemoryPatch,
  MemoryQuery,
  MemoryRecord,
  MemorySearch,
  MemoryStore,
  NewMemory,
} from './memory-store';
import {
  checkCount,
  checkEmbedding,
  checkId,
  checkJson,
  checkTableName,
  checkUuid,
  isUuid,
} from './memory-validation';

/** How vectors are compared: pgvector's operator (and its index), or an exact cosine computed by the database. */
export type VectorSearch = 'pgvector' | 'exact';

/** What the store is told by its service: the embedder's length and model, the search chosen at start. */
export interface SqlMemoryStoreOptions {
  dimensions: () => number;
  /** The embedding model's name, recorded with an agent's first vector. */
  model: () => string;
  vectorSearch: () => VectorSearch;
  sync?: () => Promise<void>;
  /**
   * The in-memory exact search, for a database only this process writes (the embedded PGlite); without it, the
   * exact search is computed by the database.
   */
  cache?: VectorCache;
  /**
   * Runs a `COPY … FROM '/dev/blob' WITH (FORMAT binary)` with `data` as its input (the embedded database): bulk
   * inserts then send vectors as bytes instead of decimal text (see memory-copy.ts).
   */
  copyBinary?: (sql: string, data: Uint8Array) => Promise<void>;
}

/** A memory found as similar as this or more is not unique (elizaOS's createMemory `unique` check). */
const DUPLICATE_SIMILARITY = 0.95;
/** Reciprocal rank fusion's constant (the usual 60). */
const RRF_K = 60;
/** Most words of a query the full-text search uses. */
const MAX_QUERY_WORDS = 32;
/** Words too common to say anything in a full-text match (the `simple` configuration keeps them). */
const STOP_WORDS = new Set(
  'the and for are was were what who whom which with that this from have has had you your our his her its they them their there then than not but can will would could should about into over also does did doing just what when where why how all any some more most other such only own same very been being'.split(
    ' ',
  ),
);
/** Rows one insert statement carries. */
const INSERT_BATCH = 500;
/** Rows a binary copy sends at once (about 3.5 MB at 384 dimensions). */
const COPY_BATCH = 1_000;

type InsertRow = ReturnType<SqlMemoryStore['rowOf']>['row'];

/**
 * A `memories` row as this store's queries read it: its vector only where a query selects it, its time as the
 * driver gives it, and a similarity where a search ranks it.
 */
type Row = Omit<
  Selectable<MemoryTable>,
  'embedding' | 'created_at' | 'dimensions' | 'text_search'
> & {
  embedding?: number[] | null;
  created_at: Date | string;
  similarity?: number | string | null;
};

const toRecord = (row: Row): MemoryRecord => ({
  id: row.id,
  agentId: row.agent_id,
  entityId: row.entity_id,
  roomId: row.room_id,
  ...(row.world_id === null ? {} : { worldId: row.world_id }),
  content: (row.content ?? {}) as MemoryRecord['content'],
  metadata: (row.metadata ?? {}) as Record<string, unknown>,
  ...(row.embedding ? { embedding: row.embedding.map(Number) } : {}),
  unique: row.is_unique,
  createdAt: new Date(row.created_at).getTime(),
  tableName: row.table_name,
  ...(row.similarity === undefined ? {} : { similarity: Number(row.similarity ?? 0) }),
});

/** A `real[]` literal; Math.fround so that what is compared is what is stored. */
const vectorLiteral = (vector: readonly number[]) =>
  `{${vector.map((value) => Math.fround(value)).join(',')}}`;

/** A query text as the full-text search takes it: bounded; '' when it has no word at all. */
export function tsQueryOf(text: string): string {
  return wordsOf(text).length === 0 ? '' : text.slice(0, 2_000);
}

const STOP_LIST = [...STOP_WORDS];

/**
 * The OR of a text's distinctive words, as PostgreSQL's parser splits them (the same as `text_search`'s, so
 * "ZX-4471" matches itself): words of three letters or more, or with a digit, without the stop words.
 */
const tsQuery = (text: string) => sql`to_tsquery('simple', coalesce((
  SELECT string_agg(quote_literal(word), ' | ') FROM (
    SELECT word FROM unnest(tsvector_to_array(to_tsvector('simple', ${text}))) AS word
    WHERE NOT (word = ANY(${STOP_LIST}::text[])) AND (length(word) > 2 OR word ~ '[0-9]')
    LIMIT ${MAX_QUERY_WORDS}) AS words), ''))`;

/**
 * Reciprocal rank fusion of the two rankings. Words first: at equal scores, a memory that has the query's words
 * (a name, a code) comes before one that only has a near vector; the sort is stable.
 */
function fuse(byWords: readonly Row[], byVector: readonly Row[], count: number): MemoryRecord[] {
  const fused = new Map<string, { row: Row; score: number }>();
  const add = (rows: readonly Row[]) =>
    rows.forEach((row, rank) => {
      const entry = fused.get(row.id) ?? { row, score: 0 };
      entry.score += 1 / (RRF_K + rank + 1);
      fused.set(row.id, entry);
    });
  add(byWords);
  add(byVector);
  return [...fused.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, count)
    .map(({ row }) => toRecord(row));
}

/** How many of a person's small reads are kept (each at most {@link PERSON_READ_ROWS} rows without vectors). */
const PERSON_READS = 2_000;
const PERSON_READ_ROWS = 50;

/** A read of one person's memories of one table, small and without vectors: the kind kept between writes. */
function isPersonRead(query: MemoryQuery): boolean {
  return (
    query.withoutEmbeddings === true &&
    typeof query.entityId === 'string' &&
    query.roomId === undefined &&
    query.worldId === undefined &&
    query.start === undefined &&
    query.end === undefined &&
    (query.offset ?? 0) === 0 &&
    typeof query.count === 'number' &&
    query.count <= PERSON_READ_ROWS
  );
}

/**
 * The memory store on the one database (PGlite or PostgreSQL), see {@link MemoryStore}. Search is exact cosine
 * computed in SQL (`real[]` as float8) or, when the database has pgvector, its `<=>` over an HNSW index made at
 * start; with a query text, full-text search (`ts_rank` over the generated `text_search`) is fused with it.
 */
export class SqlMemoryStore implements MemoryStore {
  private readonly recorded = new Set<string>();
  /**
   * On an exclusive database (PGlite: this process alone writes), a person's small reads (what the facts recaller
   * asks before each reply) are kept until the next write of any memory: each write ends by moving `generation`
   * on, and a kept read counts only if it was read at the current generation (see `docs/decisions.md`).
   */
  private readonly personReads = new LRUCache<string, { generation: number; rows: MemoryRecord[] }>(
    {
      max: PERSON_READS,
    },
  );
  private generation = 0;

  /** Runs a write; whatever it did, the kept reads are stale after it (and while it runs). */
  private async writing<T>(write: () => Promise<T>): Promise<T> {
    this.generation += 1;
    try {
      return await write();
    } finally {
      this.generation += 1;
    }
  }

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly options: SqlMemoryStoreOptions,
  ) {}

  private embeddingOf(value: unknown): number[] | undefined {
    if (value === undefined || value === null) return undefined;
    return checkEmbedding(value, this.options.dimensions());
  }

  /** Records the agent's embedding model with its first vector (a change of model is then found at start). */
  private async recordModel(agentId: string): Promise<void> {
    if (this.recorded.has(agentId)) return;
    await this.db
      .insertInto('memory_embedding_models')
      .values({
        agent_id: agentId,
        model: this.options.model(),
        dimensions: this.options.dimensions(),
      })
      .onConflict((conflict) => conflict.column('agent_id').doNothing())
      .execute();
    this.recorded.add(agentId);
  }

  /** The row to insert, and its vector as numbers (what the cache is told). */
  private rowOf(memory: NewMemory, tableName: string, unique: boolean) {
    const agentId = checkUuid(memory.agentId, 'agentId');
    const embedding = this.embeddingOf(memory.embedding);
    const row = {
      id: memory.id === undefined ? randomUUID() : checkUuid(memory.id, 'id'),
      agent_id: agentId,
      table_name: checkTableName(tableName),
      room_id: checkId(memory.roomId, 'roomId'),
      entity_id: checkId(memory.entityId, 'entityId'),
      world_id:
        memory.worldId === undefined || memory.worldId === null
          ? null
          : checkId(memory.worldId, 'worldId'),
      content: JSON.stringify(checkJson(memory.content, 'content')),
      metadata: JSON.stringify(checkJson(memory.metadata ?? {}, 'metadata')),
      embedding: embedding
        ? (sql`${vectorLiteral(embedding)}::real[]` as unknown as number[])
        : null,
      is_unique: unique,
      created_at:
        typeof memory.createdAt === 'number' && Number.isFinite(memory.createdAt)
          ? new Date(memory.createdAt)
          : new Date(),
    };
    return { row, vector: embedding ?? null };
  }

  /**
   * Tells the cache of rows inserted, and starts reading a table written that it has not loaded (the rows just
   * written included), so that the next search of this process finds it loaded: a table this process writes
   * vectors to is one it searches (see "Exact vector search in WebAssembly SIMD" in docs/decisions.md).
   */
  private cacheInserted(inserted: readonly { row: InsertRow; vector: number[] | null }[]): void {
    const { cache } = this.options;
    if (!cache) return;
    const written = new Map<string, { agentId: string; tableName: string; dimensions: number }>();
    for (const { row, vector } of inserted) {
      if (vector === null) continue;
      cache.put(row.agent_id, row.table_name, {
        id: row.id,
        room_id: row.room_id,
        entity_id: row.entity_id,
        world_id: row.world_id,
        is_unique: row.is_unique,
        embedding: vector,
      });
      const key = VectorCache.key(row.agent_id, row.table_name, vector.length);
      if (!written.has(key))
        written.set(key, {
          agentId: row.agent_id,
          tableName: row.table_name,
          dimensions: vector.length,
        });
    }
    if (this.options.vectorSearch() !== 'exact') return;
    for (const [key, { agentId, tableName, dimensions }] of written)
      cache.warm(key, dimensions, this.tableReader(agentId, tableName, dimensions));
  }

  async create(memory: NewMemory, tableName: string, unique = false): Promise<string> {
    return this.writing(async () => {
      let isUnique = false;
      if (unique) {
        const embedding = this.embeddingOf(memory.embedding);
        const text = typeof memory.content?.text === 'string' ? memory.content.text : undefined;
        // As elizaOS: a memory is unique when nothing nearly the same is stored (by vector, else by text).
        const same = embedding
          ? await this.search({
              agentId: memory.agentId,
              tableName,
              embedding,
              threshold: DUPLICATE_SIMILARITY,
              count: 1,
            })
          : text === undefined
            ? []
            : await this.db
                .selectFrom('memories')
                .select('id')
                .where('agent_id', '=', checkUuid(memory.agentId, 'agentId'))
                .where('table_name', '=', checkTableName(tableName))
                .where(sql`content->>'text'`, '=', text)
                .limit(1)
                .execute();
        isUnique = same.length === 0;
      }
      const inserted = this.rowOf(memory, tableName, isUnique);
      const { row } = inserted;
      if (memory.embedding) await this.recordModel(row.agent_id);
      try {
        await this.db.insertInto('memories').values(row).execute();
      } catch (error) {
        if ((error as { code?: string }).code === '23505') {
          throw new ParleyError('CONFLICT', `A memory with id ${row.id} already exists`);
        }
        throw error;
      }
      this.cacheInserted([inserted]);
      return row.id;
    });
  }

  async createMany(memories: readonly NewMemory[], tableName: string): Promise<string[]> {
    return this.writing(async () => {
      const inserted = memories.map((memory) => this.rowOf(memory, tableName, false));
      const withVectors = inserted.filter(({ vector }) => vector !== null);
      for (const agentId of new Set(withVectors.map(({ row }) => row.agent_id))) {
        await this.recordModel(agentId);
      }
      const { copyBinary } = this.options;
      const size = copyBinary ? COPY_BATCH : INSERT_BATCH;
      for (let start = 0; start < inserted.length; start += size) {
        const batch = inserted.slice(start, start + size);
        if (copyBinary) {
          await copyBinary(
            `COPY memories (${MEMORY_COPY_COLUMNS}) FROM '/dev/blob' WITH (FORMAT binary)`,
            encodeMemoryCopy(batch.map(({ row, vector }) => ({ ...row, embedding: vector }))),
          );
        } else {
          await this.db
            .insertInto('memories')
            .values(batch.map(({ row }) => row))
            .execute();
        }
        this.cacheInserted(batch);
      }
      return inserted.map(({ row }) => row.id);
    });
  }

  /** The filter's conditions, as SQL (`m` is the memories table). */
  private where(filter: MemoryFilter): RawBuilder<unknown> {
    const parts: RawBuilder<unknown>[] = [
      sql`m.agent_id = ${checkUuid(filter.agentId, 'agentId')}`,
      sql`m.table_name = ${checkTableName(filter.tableName)}`,
    ];
    if (filter.roomId !== undefined)
      parts.push(sql`m.room_id = ${checkId(filter.roomId, 'roomId')}`);
    if (filter.entityId !== undefined) {
      parts.push(sql`m.entity_id = ${checkId(filter.entityId, 'entityId')}`);
    }
    if (filter.worldId !== undefined)
      parts.push(sql`m.world_id = ${checkId(filter.worldId, 'worldId')}`);
    if (filter.unique !== undefined) parts.push(sql`m.is_unique = ${Boolean(filter.unique)}`);
    return sql.join(parts, sql` AND `);
  }

  private columns(withEmbedding: boolean) {
    return withEmbedding
      ? sql`m.id, m.agent_id, m.table_name, m.room_id, m.entity_id, m.world_id, m.content, m.metadata, m.embedding, m.is_unique, m.created_at`
      : sql`m.id, m.agent_id, m.table_name, m.room_id, m.entity_id, m.world_id, m.content, m.metadata, m.is_unique, m.created_at`;
  }

  async get(query: MemoryQuery): Promise<MemoryRecord[]> {
    const kept = this.options.cache !== undefined && isPersonRead(query);
    if (!kept) return this.read(query);
    const key = JSON.stringify([
      query.agentId,
      query.tableName,
      query.entityId,
      query.count,
      query.unique,
    ]);
    // Each caller gets copies: a caller that changed a kept record would change every later read.
    const hit = this.personReads.get(key);
    if (hit?.generation === this.generation) return structuredClone(hit.rows);
    const generation = this.generation;
    const rows = await this.read(query);
    if (generation === this.generation) this.personReads.set(key, { generation, rows });
    return structuredClone(rows);
  }

  private async read(query: MemoryQuery): Promise<MemoryRecord[]> {
    const count = checkCount(query.count, 100, 1_000, 'count');
    const offset = checkCount(query.offset, 0, 1_000_000, 'offset');
    const conditions = [this.where(query)];
    if (typeof query.start === 'number')
      conditions.push(sql`m.created_at >= ${new Date(query.start)}`);
    if (typeof query.end === 'number') conditions.push(sql`m.created_at <= ${new Date(query.end)}`);
    const { rows } = await sql<Row>`
      SELECT ${this.columns(!query.withoutEmbeddings)} FROM memories m
      WHERE ${sql.join(conditions, sql` AND `)}
      ORDER BY m.created_at DESC, m.id DESC LIMIT ${count} OFFSET ${offset}`.execute(this.db);
    return rows.map(toRecord);
  }

  async getById(id: string, agentId?: string): Promise<MemoryRecord | undefined> {
    if (!isUuid(id)) return undefined;
    return (await this.getByIds([id], agentId === undefined ? {} : { agentId }))[0];
  }

  async getByIds(
    ids: readonly string[],
    options: { agentId?: string; tableName?: string } = {},
  ): Promise<MemoryRecord[]> {
    const wanted = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))].slice(0, 1_000);
    if (wanted.length === 0) return [];
    const conditions = [sql`m.id = ANY(${wanted}::uuid[])`];
    if (options.agentId !== undefined)
      conditions.push(sql`m.agent_id = ${checkUuid(options.agentId, 'agentId')}`);
    if (options.tableName !== undefined) {
      conditions.push(sql`m.table_name = ${checkTableName(options.tableName)}`);
    }
    const { rows } = await sql<Row>`
      SELECT ${this.columns(true)} FROM memories m WHERE ${sql.join(conditions, sql` AND `)}
      ORDER BY m.created_at DESC, m.id DESC`.execute(this.db);
    return rows.map(toRecord);
  }

  async search(search: MemorySearch): Promise<MemoryRecord[]> {
    const count = checkCount(search.count, 10, 200, 'count');
    const threshold = search.threshold ?? 0;
    if (
      typeof threshold !== 'number' ||
      !Number.isFinite(threshold) ||
      threshold < -1 ||
      threshold > 1
    ) {
      throw new ParleyError('BAD_REQUEST', 'threshold must be a number from -1 to 1');
    }
    const embedding = this.embeddingOf(search.embedding);
    const query = typeof search.query === 'string' ? tsQueryOf(search.query) : '';
    if (!embedding && query === '') {
      if (search.embedding === undefined && search.query === undefined) {
        throw new ParleyError('BAD_REQUEST', 'a search needs an embedding or a query text');
      }
      return [];
    }
    if (count === 0) return [];
    // Each ranking's pool: enough that fusion can lift a memory the other ranking found.
    const pool = Math.max(count * 2, 20);
    const where = this.where(search);
    const { cache } = this.options;
    if (embedding && query && cache && this.options.vectorSearch() === 'exact') {
      const { byWords, byVector } = await this.cachedHybridHits(cache, search, where, {
        embedding,
        threshold,
        query,
        pool,
      });
      return fuse(byWords, byVector, count);
    }
    const byVector = embedding
      ? await this.vectorHits(search, where, embedding, threshold, query ? pool : count)
      : [];
    if (!query) return byVector.map(toRecord);
    const byWords = await this.textHits(where, query, pool, embedding);
    return fuse(byWords, byVector, count);
  }

  /**
   * Both rankings of a hybrid search on the cached exact search, in one statement: the vector ranking is computed
   * in memory, and one query reads its rows together with the full-text ranking's (whose similarity the cache
   * gives), instead of a read by ids and a second query that sent the vector to the database as text.
   */
  private async cachedHybridHits(
    cache: VectorCache,
    filter: MemoryFilter,
    where: RawBuilder<unknown>,
    search: { embedding: readonly number[]; threshold: number; query: string; pool: number },
  ): Promise<{ byWords: Row[]; byVector: Row[] }> {
    const { embedding, pool } = search;
    const table = await this.cachedTable(cache, filter, embedding.length);
    const top = cache.search(table, embedding, filter, search.threshold, pool);
    const { rows } = await sql<Row & { rank: number | null }>`
      WITH q AS (SELECT ${tsQuery(search.query)} AS query),
      words AS (
        SELECT m.id, ts_rank(m.text_search, q.query) AS rank FROM memories m, q
        WHERE ${where} AND m.text_search @@ q.query
        ORDER BY rank DESC, m.id LIMIT ${pool})
      SELECT ${this.columns(true)}, words.rank AS rank
      FROM memories m LEFT JOIN words ON words.id = m.id
      WHERE m.id IN (SELECT unnest(${top.map((hit) => hit.id)}::uuid[]) UNION SELECT id FROM words)`.execute(
      this.db,
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    // A row deleted meanwhile (another request of this process) is left out.
    const byVector = top.flatMap((hit) => {
      const row = byId.get(hit.id);
      return row ? [{ ...row, similarity: hit.similarity }] : [];
    });
    const similarity = cache.similarityTo(table, embedding);
    const byWords = rows
      .filter((row) => row.rank !== null)
      .sort((a, b) => b.rank! - a.rank! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((row) => ({ ...row, similarity: similarity(row.id) ?? 0 }));
    return { byWords, byVector };
  }

  /** The cosine similarity of `m.embedding` to the query vector, as the chosen search computes it. */
  private similarity(embedding: readonly number[]): RawBuilder<number> {
    const literal = vectorLiteral(embedding);
    if (this.options.vectorSearch() === 'pgvector') {
      const type = sql.raw(`vector(${embedding.length})`);
      return sql<number>`(1 - ((m.embedding::${type}) <=> (${literal}::real[]::${type})))`;
    }
    return sql<number>`(
      SELECT sum(a::float8 * b::float8) / NULLIF(sqrt(sum(a::float8 * a::float8)) * sqrt(sum(b::float8 * b::float8)), 0)
      FROM unnest(m.embedding, ${literal}::real[]) AS t(a, b))`;
  }

  private async vectorHits(
    filter: MemoryFilter,
    where: RawBuilder<unknown>,
    embedding: readonly number[],
    threshold: number,
    limit: number,
  ): Promise<Row[]> {
    const { cache } = this.options;
    if (cache && this.options.vectorSearch() === 'exact') {
      return this.cachedVectorHits(cache, filter, embedding, threshold, limit);
    }
    const similarity = this.similarity(embedding);
    const order =
      this.options.vectorSearch() === 'pgvector'
        ? sql`(m.embedding::${sql.raw(`vector(${embedding.length})`)}) <=> (${vectorLiteral(embedding)}::real[]::${sql.raw(`vector(${embedding.length})`)})`
        : sql`similarity DESC NULLS LAST`;
    const { rows } = await sql<Row>`
      SELECT * FROM (
        SELECT ${this.columns(true)}, ${similarity} AS similarity FROM memories m
        WHERE ${where} AND m.dimensions = ${sql.raw(String(embedding.length))}
        ORDER BY ${order}, m.id LIMIT ${limit}
      ) hits WHERE similarity >= ${threshold} ORDER BY similarity DESC, id`.execute(this.db);
    return rows;
  }

  /**
   * The agent's table of vectors of `dimensions`, read into the cache at its first search unless a write of this
   * process has read it already (see {@link cacheInserted}).
   */
  private cachedTable(
    cache: VectorCache,
    filter: MemoryFilter,
    dimensions: number,
  ): Promise<VectorTable> {
    const agentId = checkUuid(filter.agentId, 'agentId');
    const tableName = checkTableName(filter.tableName);
    return cache.ensure(
      VectorCache.key(agentId, tableName, dimensions),
      dimensions,
      this.tableReader(agentId, tableName, dimensions),
    );
  }

  /**
   * Reads an agent's table of vectors for the cache: each vector as the base64 of its binary form, which neither
   * PostgreSQL formats as decimals nor JavaScript parses as decimals (a third of the parse of `embedding::text`).
   */
  private tableReader(
    agentId: string,
    tableName: string,
    dimensions: number,
  ): () => Promise<CacheRow[]> {
    return async () => {
      const { rows } = await sql<CacheRow>`
        SELECT id, room_id, entity_id, world_id, is_unique,
          encode(array_send(embedding), 'base64') AS embedding FROM memories
        WHERE agent_id = ${agentId} AND table_name = ${tableName}
          AND dimensions = ${sql.raw(String(dimensions))}`.execute(this.db);
      return rows;
    };
  }

  /** The exact search over the agent's table read once into memory (see {@link VectorCache}). */
  private async cachedVectorHits(
    cache: VectorCache,
    filter: MemoryFilter,
    embedding: readonly number[],
    threshold: number,
    limit: number,
  ): Promise<Row[]> {
    const table = await this.cachedTable(cache, filter, embedding.length);
    const top = cache.search(table, embedding, filter, threshold, limit);
    if (top.length === 0) return [];
    const { rows } = await sql<Row>`
      SELECT ${this.columns(true)} FROM memories m
      WHERE m.id = ANY(${top.map((hit) => hit.id)}::uuid[])`.execute(this.db);
    const byId = new Map(rows.map((row) => [row.id, row]));
    // A row deleted meanwhile (another request of this process) is left out.
    return top.flatMap((hit) => {
      const row = byId.get(hit.id);
      return row ? [{ ...row, similarity: hit.similarity }] : [];
    });
  }

  private async textHits(
    where: RawBuilder<unknown>,
    query: string,
    limit: number,
    embedding: readonly number[] | undefined,
  ): Promise<Row[]> {
    const similarity = embedding
      ? sql`CASE WHEN m.dimensions = ${embedding.length} THEN ${this.similarity(embedding)} ELSE 0 END`
      : sql`0`;
    const { rows } = await sql<Row>`
      WITH q AS (SELECT ${tsQuery(query)} AS query)
      SELECT ${this.columns(true)}, ${similarity} AS similarity, ts_rank(m.text_search, q.query) AS rank
      FROM memories m, q
      WHERE ${where} AND m.text_search @@ q.query
      ORDER BY rank DESC, m.id LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  async update(patch: MemoryPatch, agentId?: string): Promise<boolean> {
    return this.writing(async () => {
      if (!isUuid(patch.id)) return false;
      const embedding = this.embeddingOf(patch.embedding);
      const set: Record<string, unknown> = {};
      if (patch.content !== undefined)
        set.content = JSON.stringify(checkJson(patch.content, 'content'));
      if (patch.metadata !== undefined) {
        set.metadata = sql`metadata || ${JSON.stringify(checkJson(patch.metadata, 'metadata'))}::jsonb`;
      }
      if (embedding) set.embedding = sql`${vectorLiteral(embedding)}::real[]`;
      let builder = this.db
        .updateTable('memories')
        .set(set)
        .where('id', '=', patch.id.toLowerCase());
      if (agentId !== undefined)
        builder = builder.where('agent_id', '=', checkUuid(agentId, 'agentId'));
      if (Object.keys(set).length === 0) {
        return (await this.getById(patch.id, agentId)) !== undefined;
      }
      const rows = await builder
        .returning([
          'id',
          'agent_id',
          'table_name',
          'room_id',
          'entity_id',
          'world_id',
          'is_unique',
        ])
        .execute();
      // Only a new vector changes what the cache holds (content and metadata are not in it).
      if (embedding) {
        for (const row of rows) {
          this.options.cache?.put(row.agent_id, row.table_name, { ...row, embedding });
        }
      }
      return rows.length > 0;
    });
  }

  async delete(id: string, agentId?: string): Promise<boolean> {
    return this.writing(async () => {
      if (!isUuid(id)) return false;
      let builder = this.db.deleteFrom('memories').where('id', '=', id.toLowerCase());
      if (agentId !== undefined)
        builder = builder.where('agent_id', '=', checkUuid(agentId, 'agentId'));
      const rows = await builder.returning(['id', 'agent_id', 'table_name']).execute();
      for (const row of rows) this.options.cache?.remove(row.agent_id, row.table_name, row.id);
      return rows.length > 0;
    });
  }

  /**
   * A bulk delete (rare: a room, a table) drops the agent's cached table instead of marking each row dead: before
   * the delete (searches meanwhile read it again) and after (a read begun meanwhile is not kept).
   */
  async deleteAll(filter: MemoryFilter): Promise<number> {
    return this.writing(async () => {
      const where = this.where(filter);
      const agentId = checkUuid(filter.agentId, 'agentId');
      const tableName = checkTableName(filter.tableName);
      this.options.cache?.invalidate(agentId, tableName);
      try {
        const result = await sql`DELETE FROM memories m WHERE ${where}`.execute(this.db);
        return Number(result.numAffectedRows ?? 0);
      } finally {
        this.options.cache?.invalidate(agentId, tableName);
      }
    });
  }

  async count(filter: MemoryFilter): Promise<number> {
    const { rows } = await sql<{ count: string | number }>`
      SELECT count(*) AS count FROM memories m WHERE ${this.where(filter)}`.execute(this.db);
    return Number(rows[0]?.count ?? 0);
  }

  async addEmbedding(id: string, embedding: readonly number[], agentId?: string): Promise<boolean> {
    const checked = checkEmbedding(embedding, this.options.dimensions());
    const found = await this.getById(id, agentId);
    if (!found) return false;
    await this.recordModel(found.agentId);
    return this.update({ id, embedding: checked }, found.agentId);
  }

  /**
   * elizaOS's legacy cache lookup: memories of the table whose `content[field][subField]` (or `content[field]`)
   * text is close to the input, by Levenshtein distance (computed here over at most 200 candidates found by
   * full-text search), with their embeddings.
   */
  async getCachedEmbeddings(
    agentId: string,
    query: CachedEmbeddingQuery,
  ): Promise<{ embedding: number[]; levenshtein_score: number }[]> {
    const input = String(query.query_input ?? '');
    const tsQuery = tsQueryOf(input);
    if (tsQuery === '') return [];
    const candidates = await this.textHits(
      this.where({ agentId, tableName: checkTableName(query.query_table_name) }),
      tsQuery,
      200,
      undefined,
    );
    const field = String(query.query_field_name ?? 'text');
    const sub = query.query_field_sub_name ? String(query.query_field_sub_name) : undefined;
    const out: { embedding: number[]; levenshtein_score: number }[] = [];
    for (const row of candidates) {
      if (!row.embedding) continue;
      const content = (row.content ?? {}) as Record<string, unknown>;
      const value = sub
        ? (content[field] as Record<string, unknown> | undefined)?.[sub]
        : content[field];
      if (typeof value !== 'string') continue;
      const score = levenshtein(input.slice(0, 2_000), value.slice(0, 2_000));
      if (score <= (query.query_threshold ?? 0))
        out.push({ embedding: row.embedding.map(Number), levenshtein_score: score });
    }
    return out
      .sort((a, b) => a.levenshtein_score - b.levenshtein_score)
      .slice(0, Math.max(0, Math.min(Number(query.query_match_count) || 10, 200)));
  }
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
