import { createAdapter } from '@socket.io/postgres-adapter';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Namespace } from 'socket.io';
import type { Adapter } from 'socket.io-adapter';
import { endPool, guardPool, poolDeadlines } from '../storage/pg-pool-guard';
import { type ClusterAdapter, logClusterError, releasingOnClose } from './create-adapter-shared';

/** The table `@socket.io/postgres-adapter` keeps payloads in that do not fit a NOTIFY (8,000 bytes). */
const ATTACHMENTS_TABLE = 'socket_io_attachments';

/**
 * socket.io's PostgreSQL adapter on a pool of its own: one connection LISTENs, the others NOTIFY. Its pool is
 * apart from the application's so that a burst of queries never delays a broadcast, and the reverse.
 *
 * The library keeps no order between events: two NOTIFYs on two pooled connections commit in either order,
 * and a payload too large for a NOTIFY goes through a table and is read back while smaller ones behind it
 * are delivered at once, so a long reply's `messageBroadcast` could reach other processes after its
 * `messageComplete`. Two small shims restore the order events were emitted in: each adapter publishes one
 * event at a time, and each listening connection hands notifications over one at a time.
 *
 * Every connection has deadlines and survives its loss, and the listening one is supervised (see
 * {@link superviseListener}): a database outage is logged, and the adapter works again once it ends.
 */
export function createPostgresAdapter(connectionString: string, logger: Logger): ClusterAdapter {
  const pool = new pg.Pool({ connectionString, max: 4, ...poolDeadlines() });
  // A lost connection (database restart, network cut), idle or checked out, must not crash the process: the
  // adapter reconnects by itself.
  guardPool(pool, (error) => logClusterError(logger, error, 'cluster connection lost'));
  /** The LISTEN connections, each with the LISTEN statement it last ran. */
  const listeners = new Map<pg.PoolClient, string>();
  pool.on('connect', (client) => superviseListener(client, listeners));
  // A LISTEN connection that stopped answering without closing (a network cut) would hear nothing for good:
  // a query on it meets the query deadline, which drops it, and the adapter listens again.
  const heartbeat = setInterval(() => {
    // LISTEN again is a no-op that proves the link.
    for (const [client, listen] of listeners) client.query(listen).catch(() => undefined);
  }, 10_000);
  heartbeat.unref();
  const ready = pool
    .query(
      `CREATE TABLE IF NOT EXISTS ${ATTACHMENTS_TABLE} (
         id bigserial UNIQUE,
         created_at timestamptz DEFAULT NOW(),
         payload bytea
       )`,
    )
    .then(
      () => undefined,
      (error: unknown) => logClusterError(logger, error, 'cluster table setup failed'),
    );
  // The adapter's own timers may still fire once the server has stopped and the pool ended: not errors.
  let closed = false;
  const factory = createAdapter(pool, {
    tableName: ATTACHMENTS_TABLE,
    errorHandler: (error: Error) => {
      if (!closed) logClusterError(logger, error, 'cluster adapter error');
    },
  });
  return {
    kind: 'postgres',
    connected: () => listeners.size > 0,
    adapter: releasingOnClose(
      function orderedAdapter(namespace: Namespace) {
        return publishInOrder(factory(namespace));
      },
      () => {
        closed = true;
        clearInterval(heartbeat);
        listeners.clear();
        return endPool(pool);
      },
    ),
    ready,
  };
}

type Publish = (...args: unknown[]) => Promise<unknown>;

/** Makes an adapter publish one event at a time, in the order socket.io emitted them. */
function publishInOrder(adapter: Adapter): Adapter {
  // doPublish and doPublishResponse are protected members of socket.io-adapter's ClusterAdapter.
  const target = adapter as unknown as Record<'doPublish' | 'doPublishResponse', Publish>;
  let tail: Promise<unknown> = Promise.resolve();
  for (const name of ['doPublish', 'doPublishResponse'] as const) {
    const publish = target[name].bind(adapter);
    target[name] = (...args: unknown[]) => {
      const published = tail.then(() => publish(...args));
      tail = published.catch(() => undefined);
      return published;
    };
  }
  return adapter;
}

/**
 * Watches the connection the library LISTENs on (the one it adds a `notification` listener to) and fixes what
 * the library leaves to chance on it:
 *
 * - its `notification` listeners run one notification at a time: the adapter's listener is async (it reads
 *   large payloads back from the table) and would otherwise let later, smaller events overtake.
 * - once it ends (the database went away), it is given back to the pool: the library never releases it, so
 *   each outage would keep one of the pool's connections for good, and `pool.end()` would wait on it forever.
 * - when its LISTEN failed, its end does not schedule a second reconnection beside the one the library's
 *   failure path already scheduled (two would LISTEN twice, and deliver every event twice).
 */
function superviseListener(client: pg.PoolClient, listeners: Map<pg.PoolClient, string>): void {
  const on = client.on.bind(client) as (
    event: string,
    listener: (...args: unknown[]) => unknown,
  ) => void;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let isListener = false;
  let listening = false;
  let released = false;
  let tail: Promise<unknown> = Promise.resolve();
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
    const result = query(...args);
    if (isListener && typeof args[0] === 'string' && args[0].startsWith('LISTEN')) {
      void (result as Promise<unknown>).then(
        () => {
          listening = true;
        },
        () => undefined,
      );
    }
    return result;
  };
  client.on = ((event: string, listener: (...args: unknown[]) => unknown) => {
    if (event === 'notification') {
      if (!isListener) {
        isListener = true;
        on('end', () => {
          listeners.delete(client);
          if (released) return;
          released = true;
          try {
            client.release(true);
          } catch {
            // Already given back (the adapter closed it).
          }
        });
      }
      on(event, (notification: unknown) => {
        tail = tail.then(() => listener(notification)).catch(() => undefined);
      });
    } else if (event === 'end' && isListener) {
      on(event, (...args: unknown[]) => {
        if (listening) return listener(...args);
        return undefined;
      });
    } else {
      on(event, listener);
    }
    return client;
  }) as typeof client.on;
}
