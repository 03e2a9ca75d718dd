import { sql, type Kysely } from 'kysely';

/**
 * Creates `memories` (agents' memories, elizaOS's shape: see memory-tables.ts) and `memory_embedding_models`
 * (which embedding model and length each agent's vectors come from). The same on PGlite and PostgreSQL: the
 * vectors are `real[]`, searched exactly, or through pgvector's cast and index when the database has the
 * extension (created at start, not here: the schema does not depend on it). `text_search` is generated from
 * `content.text` (the `simple` configuration: words as written, so names, codes and numbers match).
 */
export async function createMemoryTables(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE memories (
      id uuid PRIMARY KEY,
      agent_id uuid NOT NULL,
      table_name text NOT NULL,
      room_id text NOT NULL,
      entity_id text NOT NULL,
      world_id text,
      content jsonb NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      embedding real[],
      dimensions integer GENERATED ALWAYS AS (cardinality(embedding)) STORED,
      is_unique boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      text_search tsvector GENERATED ALWAYS AS (
        to_tsvector('simple'::regconfig, left(coalesce(content->>'text', ''), 100000))
      ) STORED
    )`.execute(db);
  await sql`CREATE INDEX memories_agent_table_created_idx ON memories (agent_id, table_name, created_at DESC)`.execute(
    db,
  );
  await sql`CREATE INDEX memories_agent_room_idx ON memories (agent_id, room_id, table_name)`.execute(
    db,
  );
  await sql`CREATE INDEX memories_agent_entity_idx ON memories (agent_id, entity_id, table_name)`.execute(
    db,
  );
  await sql`CREATE INDEX memories_text_search_idx ON memories USING gin (text_search)`.execute(db);
  await sql`
    CREATE TABLE memory_embedding_models (
      agent_id uuid PRIMARY KEY,
      model text NOT NULL,
      dimensions integer NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}
