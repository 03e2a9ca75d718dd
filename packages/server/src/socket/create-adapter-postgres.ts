import { createRequire } from 'node:module';
import pg from 'pg';
import type * as PostgresAdapter from '@socket.io/postgres-adapter';
import type { Logger } from 'pino';
import type { Namespace } from 'socket.io';
import { endPool, guardPool, poolDeadlines } from '../storage/pg-pool-guard';
import { type ClusterAdapter, logClusterError, releasingOnClose } from './create-adapter-shared';

/** The NOTIFY channel of a namespace is this prefix, `#`, and the namespace's name. */
const CHANNEL_PREFIX = 'socket.io';
/** The table `@socket.io/postgres-adapter` keeps payloads in that do not fit a NOTIFY (8,000 bytes). */
const ATTACHMENTS_TABLE = 'socket_io_attachments';

/**
 * socket.io's PostgreSQL adapter on a pool of its own: one connection LISTENs, the others NOTIFY. Its pool is
 * apart from the application's so that a burst of queries never delays a broadcast, and the reverse.
 *
 * The library keeps no order between events: two NOTIFYs on two pooled connections commit in either order,
 * and a payload too large for a NOTIFY goes through a table and is read back while smaller ones behind it
 * are delivered at once, so a long reply's `messageBroadcast` could reach other processes after its
 * `messageComplete`. And socket.io delivers a broadcast to the process's own members only once its publish
 * has settled. Two shims fix both: {@link publishInBatches} queues events in the order they were emitted and
 * sends all that waited in one statement (local members are not held back by the database), and each
 * listening connection hands notifications over one at a time.
 *
 * Every connection has deadlines and survives its loss, and the listening one is supervised (see
 * {@link superviseListener}): a database outage is logged, and the adapter works again once it ends.
 *
 * Its table is set up, and events published, only once `ready` is first read (the server reads it when it
 * starts, after migrating): a server whose database does not answer at start fails with the start's one error,
 * not with the adapter's warnings before it.
 */
export function createPostgresAdapter(connectionString: string, logger: Logger): ClusterAdapter {
  // Required here, not imported at start-up: only a cluster on PostgreSQL loads it (see docs/decisions.md).
  const { createAdapter } = createRequire(import.meta.url)(
    '@socket.io/postgres-adapter',
  ) as typeof PostgresAdapter;
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
  let setUp: Promise<void> | undefined;
  let markSetUp!: () => void;
  /** Settles once the server has started the adapter and its table is set up: publishing may begin. */
  const isSetUp = new Promise<void>((resolve) => (markSetUp = resolve));
  const ready = () =>
    (setUp ??= pool
      .query(
        `CREATE TABLE IF NOT EXISTS ${ATTACHMENTS_TABLE} (
           id bigserial UNIQUE,
           created_at timestamptz DEFAULT NOW(),
           payload bytea
         )`,
      )
      .then(
        () => undefined,
        (error: unknown) => {
          // Processes starting together race on IF NOT EXISTS: the loser's duplicate means the table is there.
          const code = (error as { code?: string }).code;
          if (code === '42P07' || code === '23505') return;
          logClusterError(logger, error, 'cluster table setup failed');
        },
      )
      .finally(markSetUp));
  // The adapter's own timers may still fire once the server has stopped and the pool ended: not errors.
  let closed = false;
  const batched = new WeakSet<PubSubClient>();
  const factory = createAdapter(pool, {
    channelPrefix: CHANNEL_PREFIX,
    payloadThreshold: PAYLOAD_THRESHOLD,
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
        const adapter = factory(namespace);
        // Every namespace's adapter shares the library's one client.
        const client = (adapter as unknown as { client: PubSubClient }).client;
        if (!batched.has(client)) {
          batched.add(client);
          publishInBatches(client, pool, logger, isSetUp, (error) => {
            if (!closed) logClusterError(logger, error, 'cluster publish failed');
          });
        }
        return adapter;
      },
      () => {
        closed = true;
        clearInterval(heartbeat);
        listeners.clear();
        return endPool(pool);
      },
    ),
    get ready() {
      return ready();
    },
  };
}

/** What the adapters publish: socket.io-adapter's cluster messages (`nsp` names the namespace). */
type ClusterMessage = { nsp: string; type: number } & Record<string, unknown>;

/** The part of the library's `PubSubClient` (shared by a server's adapters) that publishes. */
interface PubSubClient {
  publish(message: ClusterMessage): Promise<void>;
}

/** The library's limit for a payload sent in the NOTIFY itself; larger ones go through its table. */
const PAYLOAD_THRESHOLD = 8000;
/** Events one statement carries at most. */
const MAX_BATCH = 500;
/** Events waiting to be published at most; beyond it an event reaches this process's members only. */
const MAX_PENDING_PUBLISHES = 10_000;

/**
 * Replaces the library's publish (one `pg_notify` round trip per event, and socket.io awaits it before it
 * delivers to the process's own members) by a queue: an event is queued in emit order and its publish settles
 * at once, and one statement at a time sends every event that waited, in order. So a burst costs a few round
 * trips instead of one each, and a database that stops answering holds back only the other processes' copies.
 * Events that need the library's table (over 8,000 bytes, or binary) go through its own path, in their place
 * in the order. The queue is bounded: past {@link MAX_PENDING_PUBLISHES}, an event is not sent to other
 * processes (logged), as when the database is down. Nothing is sent before the adapter is `ready` (read).
 */
function publishInBatches(
  client: PubSubClient,
  pool: pg.Pool,
  logger: Logger,
  setUp: Promise<void>,
  onError: (error: unknown) => void,
): void {
  const publishOne = client.publish.bind(client);
  const pending: ClusterMessage[] = [];
  let draining = false;
  let dropped = 0;

  client.publish = (message) => {
    if (pending.length >= MAX_PENDING_PUBLISHES) {
      if (dropped++ === 0) {
        logger.warn({ pending: pending.length }, 'cluster publish queue full; events stay local');
      }
      return Promise.resolve();
    }
    pending.push(message);
    if (!draining) void drain();
    return Promise.resolve();
  };

  async function drain(): Promise<void> {
    draining = true;
    // Held until the server has started the adapter (read `ready`); then sent in order.
    await setUp;
    while (pending.length > 0) {
      const message = pending[0]!;
      try {
        const payload = encode(message);
        if (payload === undefined) {
          pending.shift();
          await publishOne(message); // the library's table path; it reports its own errors
          continue;
        }
        const batch = takeBatch(pending, message.nsp, payload);
        // unnest keeps the array's order, and so do notifications sent in one transaction.
        await pool.query(
          'SELECT pg_notify($1, payload) FROM unnest($2::text[]) WITH ORDINALITY AS e(payload, n) ORDER BY n',
          [`${CHANNEL_PREFIX}#${message.nsp}`, batch],
        );
      } catch (error) {
        // A database error, or an event JSON cannot carry (a BigInt): that batch is lost, never the queue.
        if (pending[0] === message) pending.shift();
        onError(error);
      }
    }
    if (dropped > 0)
      logger.warn({ dropped }, 'cluster publish queue drained; events were kept local');
    dropped = 0;
    draining = false;
  }
}

/**
 * Takes from the front of `pending` the run of events that can share one statement: same namespace, small,
 * no binary, and no payload twice (PostgreSQL delivers identical notifications of one transaction once).
 */
function takeBatch(pending: ClusterMessage[], nsp: string, first: string): string[] {
  const batch = [first];
  const seen = new Set(batch);
  pending.shift();
  while (pending.length > 0 && batch.length < MAX_BATCH) {
    const next = pending[0]!;
    if (next.nsp !== nsp) break;
    let payload: string | undefined;
    try {
      payload = encode(next);
    } catch {
      break; // first in the next round, where it fails alone
    }
    if (payload === undefined || seen.has(payload)) break;
    pending.shift();
    batch.push(payload);
    seen.add(payload);
  }
  return batch;
}

/** An event's NOTIFY payload, or undefined when it needs the library's table (over the limit, or binary). */
function encode(message: ClusterMessage): string | undefined {
  if (hasBinary(message)) return undefined;
  const payload = JSON.stringify(message);
  return Buffer.byteLength(payload) > PAYLOAD_THRESHOLD ? undefined : payload;
}

/** Whether a value holds binary data (which the library sends through its table, as MessagePack). */
function hasBinary(value: unknown): boolean {
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(hasBinary);
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
