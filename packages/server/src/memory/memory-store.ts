import type { Content } from '@parley/plugin-sdk';

/** What a memory holds, stored or to store: whose it is, where it was said, and what. */
export interface MemoryFields {
  agentId: string;
  entityId: string;
  roomId: string;
  worldId?: string;
  content: Content;
  metadata?: Record<string, unknown>;
  embedding?: number[];
}

/**
 * One memory, in elizaOS's `Memory` shape plus the table it is in. `tableName` is elizaOS's: `messages`,
 * `facts`, `documents`, `fragments`, or any custom name (letters, digits, `_`, `-`, at most 64).
 */
export interface MemoryRecord extends MemoryFields {
  id: string;
  unique: boolean;
  /** Epoch milliseconds. */
  createdAt: number;
  tableName: string;
  /** A search's cosine similarity to the query embedding (0 when the record was found by its words alone). */
  similarity?: number;
}

/** A memory to store: the id and time are chosen when absent. */
export interface NewMemory extends MemoryFields {
  id?: string;
  createdAt?: number;
}

/** Which memories of an agent's table. Unset filters match all. */
export interface MemoryFilter {
  agentId: string;
  tableName: string;
  roomId?: string;
  entityId?: string;
  worldId?: string;
  /** Only memories stored as unique (`true`) or only the others (`false`). */
  unique?: boolean;
}

/** A listing: newest first, `count` at most (default 100, at most 1,000), created within [start, end]. */
export interface MemoryQuery extends MemoryFilter {
  count?: number;
  offset?: number;
  /** Epoch milliseconds, inclusive. */
  start?: number;
  end?: number;
  /** Leave the embeddings out (smaller answers). */
  withoutEmbeddings?: boolean;
}

/**
 * A search: by embedding (cosine similarity at least `threshold`, default 0) and, with `query`, by full-text
 * search of the memories' `content.text` too, the two rankings fused (reciprocal rank fusion): a memory whose
 * words match is found even when its vector is far. `count` results at most (default 10, at most 200). At least
 * one of `embedding` and `query` is needed.
 */
export interface MemorySearch extends MemoryFilter {
  embedding?: readonly number[];
  query?: string;
  threshold?: number;
  count?: number;
}

/** A change to a memory: what is given replaces what is stored (`metadata` is merged). */
export interface MemoryPatch {
  id: string;
  content?: Content;
  metadata?: Record<string, unknown>;
  embedding?: number[];
}

/** elizaOS's `getCachedEmbeddings` parameters (the legacy embedding cache lookup). */
export interface CachedEmbeddingQuery {
  query_table_name: string;
  query_threshold: number;
  query_input: string;
  query_field_name: string;
  query_field_sub_name: string;
  query_match_count: number;
}

/**
 * Agents' memories, in the one database (PGlite or PostgreSQL, shared by processes). Every call is scoped to one
 * agent. A vector of the wrong length for the store's embedder is refused with BAD_REQUEST naming both lengths.
 */
export interface MemoryStore {
  /** Stores a memory; with `unique`, one whose text is already in the agent's table is not stored again (the existing id is answered). */
  create(memory: NewMemory, tableName: string, unique?: boolean): Promise<string>;
  /** Stores many at once (one statement per batch); answers their ids in order. */
  createMany(memories: readonly NewMemory[], tableName: string): Promise<string[]>;
  get(query: MemoryQuery): Promise<MemoryRecord[]>;
  getById(id: string, agentId?: string): Promise<MemoryRecord | undefined>;
  getByIds(
    ids: readonly string[],
    options?: { agentId?: string; tableName?: string },
  ): Promise<MemoryRecord[]>;
  search(search: MemorySearch): Promise<MemoryRecord[]>;
  /** Whether a memory was changed (false: none of that id, for that agent). */
  update(patch: MemoryPatch, agentId?: string): Promise<boolean>;
  delete(id: string, agentId?: string): Promise<boolean>;
  /** Deletes what the filter matches; answers how many. */
  deleteAll(filter: MemoryFilter): Promise<number>;
  count(filter: MemoryFilter): Promise<number>;
  addEmbedding(id: string, embedding: readonly number[], agentId?: string): Promise<boolean>;
  getCachedEmbeddings(
    agentId: string,
    query: CachedEmbeddingQuery,
  ): Promise<{ embedding: number[]; levenshtein_score: number }[]>;
}
