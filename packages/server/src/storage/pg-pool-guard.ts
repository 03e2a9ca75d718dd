import type pg from 'pg';

/** pg's message when a query outlived the pool's `query_timeout` (it sets no code). */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/** Deadlines every Parley pool gets, so that a database that stops answering fails calls instead of hanging them. */
export interface PoolDeadlines {
  /** How long to wait for a connection, from the pool or the network (ms). */
  connectionTimeoutMillis: number;
  /** How long a query may wait for its answer before it fails on this side (ms); the connection is dropped. */
  query_timeout: number;
  /** How long PostgreSQL lets one statement run before it cancels it itself (ms). */
  statement_timeout: number;
  /** TCP keep-alive, so that a connection whose peer vanished is noticed even when idle. */
  keepAlive: true;
}

/** The query deadline when none is given (ms): `queryTimeoutMs` of the `database` option. */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

/**
 * The deadlines for `queryTimeoutMs` (default 10 s): a connection within 5 s (or the query deadline, when it is
 * shorter), PostgreSQL's own statement deadline the same as this side's.
 */
export function poolDeadlines(queryTimeoutMs = DEFAULT_QUERY_TIMEOUT_MS): PoolDeadlines {
  return {
    connectionTimeoutMillis: Math.min(5000, queryTimeoutMs),
    query_timeout: queryTimeoutMs,
    statement_timeout: queryTimeoutMs,
    keepAlive: true,
  };
}

/**
 * Makes a pool safe against a database that goes away or stops answering:
 *
 * - every client gets an `error` listener for its whole life. pg-pool listens only while a client is idle; a
 *   client that is checked out (a query in flight, a LISTEN connection held for good) and loses its connection
 *   emits `error` with nobody listening, and the process dies.
 * - a client whose query timed out is dropped: pg answers the caller but leaves the query pending on the
 *   connection, so the next caller would wait behind it. Dropping it makes the pool open a fresh one.
 *
 * @param onError told of every lost connection (log it; nothing else is needed, the pool replaces the client).
 */
export function guardPool(pool: pg.Pool, onError: (error: Error) => void): pg.Pool {
  pool.on('error', onError);
  pool.on('connect', (client) => {
    client.on('error', onError);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
      const result = query(...args);
      if (result instanceof Promise) {
        result.catch((error: unknown) => {
          if (error instanceof Error && error.message === QUERY_TIMEOUT_MESSAGE)
            dropConnection(client);
        });
      }
      // Callback callers (pool.query()): pg-pool releases the client with the error, which ends it.
      return result;
    };
  });
  return pool;
}

/**
 * Closes a client's socket at once: its pending query gets an error, the client emits `error` (handled) and
 * `end`, and pg-pool removes it when it is released (or at once if it is idle).
 */
export function dropConnection(client: pg.Client | pg.PoolClient): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection
    ?.stream;
  if (stream) stream.destroy();
  else void client.end().catch(() => undefined);
}

/**
 * Ends a pool, waiting at most `deadlineMs` for its connections to close: pg-pool's `end()` waits for every
 * checked-out client, and against a database that stopped answering that is forever. After the deadline the
 * remaining connections are dropped.
 */
export async function endPool(pool: pg.Pool, deadlineMs = 3000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = pool.end().then(
    () => true,
    () => true,
  );
  const inTime = await Promise.race([
    ended,
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), deadlineMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
  if (inTime) return;
  // pg-pool keeps its clients in `_clients`; no public way lists them.
  const clients = (pool as unknown as { _clients?: pg.Client[] })._clients ?? [];
  for (const client of [...clients]) dropConnection(client);
}
