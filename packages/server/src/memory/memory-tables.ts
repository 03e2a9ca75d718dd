import type { ColumnType, Generated } from 'kysely';

/** `memories`: one row per memory of an agent (elizaOS `Memory` plus its table name). */
export interface MemoryTable {
  id: string;
  agent_id: string;
  table_name: string;
  room_id: string;
  entity_id: string;
  world_id: string | null;
  content: unknown;
  metadata: ColumnType<unknown, unknown, unknown>;
  embedding: number[] | null;
  dimensions: ColumnType<number | null, never, never>;
  is_unique: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  text_search: ColumnType<string, never, never>;
}

/** `memory_embedding_models`: the embedding model and length of each agent's stored vectors. */
export interface MemoryEmbeddingModelTable {
  agent_id: string;
  model: string;
  dimensions: number;
  updated_at: Generated<Date>;
}

/** The memory tables, as Kysely sees them. */
export interface MemoryTables {
  memories: MemoryTable;
  memory_embedding_models: MemoryEmbeddingModelTable;
}
