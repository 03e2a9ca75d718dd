import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ConfigError } from '../errors/config-error';
import type { EmbeddingProvider } from '../models/embeddings';
import type { DatabaseSchema } from '../storage/schema';
import type { MemoryStore } from './memory-store';
import type { Recaller } from './recall';
import { SqlMemoryStore, type VectorSearch } from './sql-memory-store';
import { VectorCache } from './vector-cache';

/** The server's memory: the store, the embedder, and what each reply recalls. */
export interface MemoryService {
  readonly store: MemoryStore;
  readonly embeddings: EmbeddingProvider;
  /** How vectors are searched, chosen at `start()` (`exact` until then). */
  readonly vectorSearch: VectorSearch;
  /**
   * What each reply recalls into its prompt; the reply loop reads this array at each reply, so a recaller added
   * before or after start is used (KNOW's knowledge, PEOPLE's facts).
   */
  readonly recallers: readonly Recaller[];
  addRecaller(recaller: Recaller): void;
  /**
   * After migrations: learns the embedder's length, chooses the vector search (pgvector when `CREATE EXTENSION
   * vector` succeeds, else exact), and refuses to start when an agent's stored vectors come from another model or
   * length (a ConfigError saying what to do). Logs the choice.
   */
  start(): Promise<void>;
}

/** What {@link createMemoryService} needs. */
export interface MemoryServiceOptions {
  db: Kysely<DatabaseSchema>;
  embeddings: EmbeddingProvider;
  logger: Pick<Logger, 'info' | 'warn'>;
  sync?: () => Promise<void>;
  /** Only this process writes the database (the embedded PGlite): the exact search keeps vectors in memory. */
  exclusive?: boolean;
  /** The database's binary `COPY` (the embedded database): bulk inserts send vectors as bytes. */
  copyBinary?: (sql: string, data: Uint8Array) => Promise<void>;
}

/** Largest length pgvector's HNSW index takes for `vector`. */
const MAX_INDEXED_DIMENSIONS = 2_000;

/** Creates the memory service on the server's database; call `start()` after migrating. */
export function createMemoryService(options: MemoryServiceOptions): MemoryService {
  const { db, embeddings, logger } = options;
  let vectorSearch: VectorSearch = 'exact';
  const recallers: Recaller[] = [];
  const store = new SqlMemoryStore(db, {
    dimensions: () => embeddings.dimensions,
    model: () => embeddings.model,
    vectorSearch: () => vectorSearch,
    ...(options.sync ? { sync: options.sync } : {}),
    ...(options.exclusive ? { cache: new VectorCache() } : {}),
    ...(options.copyBinary ? { copyBinary: options.copyBinary } : {}),
  });
  return {
    store,
    embeddings,
    get vectorSearch() {
      return vectorSearch;
    },
    recallers,
    addRecaller: (recaller) => void recallers.push(recaller),
    async start() {
      await embeddings.ready?.({ signal: AbortSignal.timeout(60_000) });
      const { dimensions, model } = embeddings;
      const mismatched = await db
        .selectFrom('memory_embedding_models')
        .selectAll()
        .where((eb) => eb.or([eb('model', '!=', model), eb('dimensions', '!=', dimensions)]))
        .limit(5)
        .execute();
      if (mismatched.length > 0) {
        const first = mismatched[0]!;
        throw new ConfigError(
          `agent ${first.agent_id}'s memories were embedded by ${first.model} (${first.dimensions} dimensions), but EMBEDDING_MODEL now gives ${model} (${dimensions}); vectors of two models are never mixed: run \`parley reembed\` with these settings to embed them again with ${model}, or set EMBEDDING_MODEL back to ${first.model} (docs/memory.md, "Changing the embedding model")`,
        );
      }
      vectorSearch = (await tryPgvector(db, dimensions)) ? 'pgvector' : 'exact';
      logger.info(
        { embeddings: embeddings.name, model, dimensions, vectorSearch },
        `memory: ${embeddings.name} embeddings (${model}, ${dimensions} dimensions), ${vectorSearch === 'pgvector' ? 'pgvector HNSW' : 'exact'} vector search`,
      );
    },
  };
}

/** Whether the database has pgvector (creating the extension and the HNSW index for this length if not there). */
async function tryPgvector(db: Kysely<DatabaseSchema>, dimensions: number): Promise<boolean> {
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS vector`.execute(db);
  } catch {
    return false;
  }
  if (dimensions > 0 && dimensions <= MAX_INDEXED_DIMENSIONS) {
    const name = sql.raw(`memories_embedding_hnsw_${dimensions}`);
    const type = sql.raw(`vector(${dimensions})`);
    await sql`CREATE INDEX IF NOT EXISTS ${name} ON memories USING hnsw ((embedding::${type}) vector_cosine_ops) WHERE dimensions = ${sql.raw(String(dimensions))}`.execute(
      db,
    );
  }
  return true;
}
