import { mkdirSync } from 'node:fs';
import type { Tracer } from '@opentelemetry/api';
import { type Dialect, Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { migrationProvider } from './migrations';
import { createMissingDatabase, isMissingDatabase } from './missing-database';
import { lockDataDir } from './data-dir-lock';
import { DEFAULT_QUERY_TIMEOUT_MS, endPool, guardPool, poolDeadlines } from './pg-pool-guard';
import { createPGliteDialect } from './pglite-dialect';
import { PGliteWorkerClient } from './pglite-worker-client';
import type { DatabaseSchema } from './schema';
import { tracedDialect } from '../tracing/traced-dialect';
import { DEFAULTS } from '../defaults';

/** Where the data lives: an embedded PGlite folder (or memory), or a PostgreSQL server. */
export type DatabaseLocation =
  /** `dataDir` is a folder, or `'memory'` for a database that lives and dies with the process. */
  | {
      kind: 'pglite';
      dataDir: string;
      /**
       * Loads PGlite's build of pgvector (`@electric-sql/pglite-pgvector`), so that memories are searched through
       * its HNSW index instead of the exact search (`MEMORY_VECTOR_INDEX=hnsw`; docs/memory.md).
       */
      pgvector?: boolean;
    }
  | {
      kind: 'postgres';
      url: string;
      poolSize?: number;
      /**
       * How long one query may take before it fails (default 10000 ms): PostgreSQL cancels it
       * (`statement_timeout`) and, for a database that stopped answering altogether, this side gives up
       * (`query_timeout`) and drops the connection. A request then answers 503 instead of hanging.
       */
      queryTimeoutMs?: number;
      /**
       * Create the database the URL names when it does not exist (`3D000`), connected as the URL's user to the
       * server's maintenance database, before migrating (default false; the app's `DATABASE_CREATE`).
       */
      createIfMissing?: boolean;
    };

/** A database handle; `migrate()` must run before first use. */
export interface Database {
  readonly db: Kysely<DatabaseSchema>;
  readonly kind: DatabaseLocation['kind'];
  /**
   * The query deadline (`queryTimeoutMs`) on PostgreSQL: what waits on the database (a message in its write
   * batch, a reply's turn) gives up after it. Undefined for the embedded database, which has no network to hang.
   */
  readonly deadlineMs?: number;
  /** Runs every pending migration. Kysely's migrator takes a lock, so processes may race safely. */
  migrate(logger?: Logger): Promise<void>;
  /**
   * Makes every commit so far durable against power loss. PostgreSQL does this at commit and PGlite in memory
   * has nothing to make durable, so only an embedded database on disk does any work here.
   */
  sync(): Promise<void>;
  /**
   * Runs a `COPY … FROM '/dev/blob'` with `data` as its input. The embedded database only: `pg` has no `COPY`
   * without another library, and the embedded database is where text vectors were slow (see memory-copy.ts).
   */
  copyBinary?(sql: string, data: Uint8Array): Promise<void>;
  /** The connection pool's state, for metrics (PostgreSQL only: the embedded database has no pool). */
  poolState?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/**
 * Creates a handle on the embedded PGlite database (a folder, or memory) or a PostgreSQL server. The same
 * migrations serve both: both are PostgreSQL. A folder is locked for this process until `close()` (or exit):
 * when another live process holds it, this throws a ParleyError (`CONFLICT`) saying so. With `tracer`, each
 * statement run inside a trace is a span.
 */
export function createDatabase(
  location: DatabaseLocation,
  options: { tracer?: Tracer } = {},
): Database {
  const { dialect, sync, release, pool, copyBinary } = dialectFor(location);
  // With a tracer, a span per statement run inside a trace; without, the dialect as it is.
  const db = new Kysely<DatabaseSchema>({
    dialect: options.tracer ? tracedDialect(dialect, options.tracer) : dialect,
  });
  return {
    db,
    kind: location.kind,
    ...(location.kind === 'postgres'
      ? { deadlineMs: location.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS }
      : {}),
    sync,
    ...(copyBinary ? { copyBinary } : {}),
    ...(pool
      ? {
          poolState: () => ({
            total: pool.totalCount,
            idle: pool.idleCount,
            waiting: pool.waitingCount,
          }),
        }
      : {}),
    async migrate(logger) {
      const migrator = new Migrator({ db, provider: migrationProvider });
      let { error, results } = await migrator.migrateToLatest();
      // A first deploy's database that does not exist yet: created when the operator lets start do it.
      if (error && location.kind === 'postgres' && location.createIfMissing) {
        if (isMissingDatabase(error)) {
          await createMissingDatabase(location.url, {
            connectionTimeoutMs: poolDeadlines(location.queryTimeoutMs).connectionTimeoutMillis,
            logger,
          });
          ({ error, results } = await migrator.migrateToLatest());
        }
      }
      for (const result of results ?? []) {
        if (result.status === 'Success')
          logger?.info({ migration: result.migrationName }, 'migrated');
      }
      if (error)
        throw error instanceof Error ? error : new Error('migration failed', { cause: error });
    },
    async close() {
      await db.destroy();
      await release();
    },
  };
}

const nothing = () => Promise.resolve();

function dialectFor(location: DatabaseLocation): {
  dialect: Dialect;
  sync: () => Promise<void>;
  release: () => Promise<void>;
  pool?: pg.Pool;
  copyBinary?: (sql: string, data: Uint8Array) => Promise<void>;
} {
  if (location.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: location.url,
      max: location.poolSize ?? DEFAULTS.internals.databasePoolSize,
      // A database that accepts connections but never answers becomes a 503, not a hang.
      ...poolDeadlines(location.queryTimeoutMs),
    });
    // A client that loses its connection (database restart, network cut), idle or in the middle of a query,
    // must not crash the process: the query fails (a 503) and the pool opens a fresh connection next time.
    guardPool(pool, () => undefined);
    // Kysely's destroy() ends the pool; a database that stopped answering must not hold it open for good.
    const dialect = new PostgresDialect({
      pool: { connect: () => pool.connect(), end: () => endPool(pool) },
    });
    return { dialect, sync: nothing, release: nothing, pool };
  }
  const dataDir = location.dataDir === 'memory' ? undefined : location.dataDir;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // One process per folder: a second server stops here, before it touches the files.
  const lock = dataDir ? lockDataDir(dataDir) : undefined;
  let worker: PGliteWorkerClient;
  try {
    worker = new PGliteWorkerClient(dataDir, { pgvector: location.pgvector === true });
  } catch (error) {
    lock?.release();
    throw error;
  }
  return {
    dialect: createPGliteDialect(worker),
    sync: () => worker.sync(),
    copyBinary: (sql: string, data: Uint8Array) => worker.copyIn(sql, data),
    release: () => worker.close().finally(() => lock?.release()),
  };
}
