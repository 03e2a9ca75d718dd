import { createAdapter } from '@socket.io/postgres-adapter';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Namespace } from 'socket.io';
import type { Adapter } from 'socket.io-adapter';
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
 */
export function createPostgresAdapter(connectionString: string, logger: Logger): ClusterAdapter {
  const pool = new pg.Pool({ connectionString, max: 4 });
  // A lost connection (database restart) must not crash the process: the adapter reconnects by itself.
  pool.on('error', (error) => logClusterError(logger, error, 'cluster pool connection lost'));
  pool.on('connect', (client) => {
    client.on('error', (error) => logClusterError(logger, error, 'cluster connection lost'));
    deliverNotificationsInOrder(client);
  });
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
    adapter: releasingOnClose(
      function orderedAdapter(namespace: Namespace) {
        return publishInOrder(factory(namespace));
      },
      () => {
        closed = true;
        return pool.end();
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
 * Runs the connection's `notification` listeners one notification at a time: the adapter's listener is async
 * (it reads large payloads back from the table) and would otherwise let later, smaller events overtake.
 */
function deliverNotificationsInOrder(client: pg.PoolClient): void {
  const on = client.on.bind(client) as (
    event: string,
    listener: (...args: unknown[]) => unknown,
  ) => void;
  let tail: Promise<unknown> = Promise.resolve();
  client.on = ((event: string, listener: (...args: unknown[]) => unknown) => {
    if (event !== 'notification') {
      on(event, listener);
      return client;
    }
    on(event, (notification: unknown) => {
      tail = tail.then(() => listener(notification)).catch(() => undefined);
    });
    return client;
  }) as typeof client.on;
}
