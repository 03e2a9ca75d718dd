import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { migrationProvider } from './migrations';
import { createPGliteDialect } from './pglite-dialect';
import type { DatabaseSchema } from './schema';

/** Where the data lives: an embedded PGlite folder (or memory), or a PostgreSQL server. */
export type DatabaseLocation =
  /** `dataDir` is a folder, or `'memory'` for a database that lives and dies with the process. */
  { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string; poolSize?: number };

/** A database handle; `migrate()` must run before first use. */
export interface Database {
  readonly db: Kysely<DatabaseSchema>;
  readonly kind: DatabaseLocation['kind'];
  /** Runs every pending migration. Kysely's migrator takes a lock, so processes may race safely. */
  migrate(logger?: Logger): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates a handle on the embedded PGlite database (a folder, or memory) or a PostgreSQL server. The same
 * migrations serve both: both are PostgreSQL.
 */
export function createDatabase(location: DatabaseLocation): Database {
  const db = new Kysely<DatabaseSchema>({ dialect: dialectFor(location) });
  return {
    db,
    kind: location.kind,
    async migrate(logger) {
      const migrator = new Migrator({ db, provider: migrationProvider });
      const { error, results } = await migrator.migrateToLatest();
      for (const result of results ?? []) {
        if (result.status === 'Success')
          logger?.info({ migration: result.migrationName }, 'migrated');
      }
      if (error)
        throw error instanceof Error ? error : new Error('migration failed', { cause: error });
    },
    close: () => db.destroy(),
  };
}

function dialectFor(location: DatabaseLocation) {
  if (location.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: location.url, max: location.poolSize ?? 10 });
    // An idle client that errors (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => undefined);
    return new PostgresDialect({ pool });
  }
  if (location.dataDir === 'memory') return createPGliteDialect(new PGlite());
  mkdirSync(location.dataDir, { recursive: true });
  return createPGliteDialect(new PGlite(location.dataDir));
}
