import { sql, type Kysely } from 'kysely';
import { ConfigError } from '../errors/config-error';
import { embeddingsFromEnv, type EmbeddingProvider } from '../models/embeddings';
import { createDatabase, type DatabaseLocation } from '../storage/create-database';
import type { DatabaseSchema } from '../storage/schema';
import {
  reembedMemories,
  type EmbeddingModelRecord,
  type ReembedProgress,
  type ReembedResult,
} from './reembed';

/** What {@link runReembed} needs: the server's database and settings. */
export interface RunReembedOptions {
  /** The database the server uses (the embedded folder, or `DATABASE_URL`). */
  database: DatabaseLocation;
  /** The settings (`EMBEDDING_MODEL`, `EMBEDDING_URL`…) the server would start with. */
  env: Readonly<Record<string, string | undefined>>;
  /** The embedder to use instead of the one `env` gives. */
  embeddings?: EmbeddingProvider;
  /** Only this agent. */
  agentId?: string;
  /** Memories embedded and written at once. */
  pageSize?: number;
  onProgress?: (progress: ReembedProgress) => void;
  /** Each agent once it is wholly on the new model (durable by then). */
  onAgent?: (result: ReembedResult) => void;
}

/** What a run did: the embedder's model, each agent switched, and, for `agentId`, what it is recorded on. */
export interface RunReembedOutcome {
  current: EmbeddingModelRecord;
  results: ReembedResult[];
  /** With `agentId`: its recorded model after the run (undefined: it has no stored vector). */
  recorded?: EmbeddingModelRecord;
}

/** How long other sessions on PostgreSQL are given to go away (a server that has just stopped). */
const SESSIONS_GRACE_MS = 3_000;

/**
 * `parley reembed`: opens the server's database as the server would (and migrates it), with the embedder the
 * settings give, and re-embeds every agent recorded on another model or length ({@link reembedMemories}).
 *
 * The embedded database is locked by a running server: opening it throws the lock's `CONFLICT`, before anything
 * is read. On PostgreSQL the run refuses while any other session is connected to the database (a running
 * server would go on writing vectors of its model after the switch), at the start and again just before each
 * agent's switch commits.
 *
 * @throws ConfigError for a bad embedding setting or other sessions; ReembedError when an agent failed.
 */
export async function runReembed(options: RunReembedOptions): Promise<RunReembedOutcome> {
  const embeddings = options.embeddings ?? embeddingsFromEnv(options.env);
  const location: DatabaseLocation =
    options.database.kind === 'postgres'
      ? { ...options.database, poolSize: 1, createIfMissing: false }
      : options.database;
  const database = createDatabase(location);
  try {
    await database.migrate();
    const shared = database.kind === 'postgres';
    if (shared) await refuseOtherSessions(database.db, SESSIONS_GRACE_MS);
    const results = await reembedMemories({
      db: database.db,
      embeddings,
      ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(shared ? { beforeCommit: (trx) => refuseOtherSessions(trx, 0) } : {}),
      onAgent: async (result) => {
        await database.sync();
        options.onAgent?.(result);
      },
    });
    const current = { model: embeddings.model, dimensions: embeddings.dimensions };
    if (options.agentId === undefined) return { current, results };
    const recorded = await database.db
      .selectFrom('memory_embedding_models')
      .select(['model', 'dimensions'])
      .where('agent_id', '=', options.agentId)
      .executeTakeFirst();
    return { current, results, ...(recorded ? { recorded } : {}) };
  } finally {
    await database.close();
  }
}

/**
 * Throws a ConfigError naming the other sessions connected to this PostgreSQL database, when there are any
 * after `graceMs` (a server that was just stopped may take a moment to close its connections).
 */
async function refuseOtherSessions(db: Kysely<DatabaseSchema>, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const { rows } = await sql<{ who: string }>`
      SELECT coalesce(nullif(application_name, ''), host(client_addr), 'a local socket') || ' (pid ' || pid || ')' AS who
      FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`.execute(
      db,
    );
    if (rows.length === 0) return;
    if (Date.now() >= deadline) {
      throw new ConfigError(
        `${rows.length} other session${rows.length === 1 ? ' is' : 's are'} connected to this database (${rows
          .slice(0, 5)
          .map((row) => row.who)
          .join(
            ', ',
          )}): stop every server that uses DATABASE_URL first, since one left running would go on writing vectors of the old model`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
