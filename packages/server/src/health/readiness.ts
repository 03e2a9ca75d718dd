import { Migrator, sql, type Kysely } from 'kysely';
import { createDatabase, type DatabaseLocation } from '../storage/create-database';
import { migrationProvider } from '../storage/migrations';

/** The outcome of one readiness check. `detail` is safe to show: it never carries a secret or a stack. */
export interface ReadinessCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

/** One thing that must be up for the server to take traffic. Resolves, never rejects. */
export type ReadinessProbe = () => Promise<ReadinessCheck>;

/** The answer of `GET /api/server/ready`. */
export interface ReadinessReport {
  ready: boolean;
  checks: ReadinessCheck[];
}

/** Runs every probe at once; ready when each one is. */
export async function checkReadiness(probes: readonly ReadinessProbe[]): Promise<ReadinessReport> {
  const checks = await Promise.all(probes.map((probe) => probe()));
  return { ready: checks.every((check) => check.ok), checks };
}

/**
 * The database probe: it answers a query within `timeoutMs`, and every migration this build knows has run
 * (a newer build may have migrated further; that is fine).
 */
export function databaseProbe<T>(db: Kysely<T>, timeoutMs = 5_000): ReadinessProbe {
  return async () => {
    const name = 'database';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const pending = (async () => {
        await sql`select 1`.execute(db);
        const migrations = await new Migrator({ db, provider: migrationProvider }).getMigrations();
        return migrations.filter((migration) => migration.executedAt === undefined).length;
      })();
      const outcome = await Promise.race([pending, timeout]);
      if (outcome === 'timeout') return { name, ok: false, detail: `no answer in ${timeoutMs} ms` };
      if (outcome > 0) return { name, ok: false, detail: `${outcome} migration(s) pending` };
      return { name, ok: true };
    } catch {
      return { name, ok: false, detail: 'unreachable' };
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * Which room adapter the server uses (`in-process`, `postgres` or `redis`) and whether it is connected, as the
 * `rooms` check. Informative: it never fails readiness (a process whose adapter reconnects still serves its own
 * sockets, and the database check already covers PostgreSQL), so every process of a cluster is not taken out
 * of rotation at once when Redis restarts.
 */
export function roomsProbe(
  rooms: () => { kind: 'in-process' | 'postgres' | 'redis'; connected: boolean },
): ReadinessProbe {
  return () => {
    const { kind, connected } = rooms();
    return Promise.resolve({
      name: 'rooms',
      ok: true,
      detail:
        kind === 'in-process'
          ? 'in-process'
          : `${kind}, ${connected ? 'connected' : 'reconnecting'}`,
    });
  };
}

/**
 * Opens the database at `location` just long enough to run the {@link databaseProbe}, then closes it: for
 * checks made outside a running server (`parley doctor`). A failure carries its `cause` (the driver's error,
 * with its code: 3D000, ECONNREFUSED…) so that the caller can say what `parley start` would say. Bounded by
 * `timeoutMs` (a database that does not answer included), and the connection deadlines are shortened to it.
 */
export async function probeDatabaseLocation(
  location: DatabaseLocation,
  timeoutMs = 10_000,
): Promise<ReadinessCheck & { cause?: unknown }> {
  const database = createDatabase(
    location.kind === 'postgres'
      ? { ...location, queryTimeoutMs: timeoutMs, poolSize: 1 }
      : location,
  );
  try {
    let cause: unknown;
    // The same query first, to keep the driver's error (the probe itself says only "unreachable").
    await sql`select 1`.execute(database.db).catch((error: unknown) => (cause = error));
    if (cause !== undefined) return { name: 'database', ok: false, detail: 'unreachable', cause };
    return await databaseProbe(database.db, timeoutMs)();
  } finally {
    await database.close().catch(() => undefined);
  }
}
