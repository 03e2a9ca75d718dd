import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type * as Redis from 'redis';
import type * as RedisStreamsAdapter from '@socket.io/redis-streams-adapter';
import { DependencyError } from '../health/dependency-error';
import { type ClusterAdapter, logClusterError, releasingOnClose } from './create-adapter-shared';

/** How long start-up waits for Redis before it gives up with one line (default). */
export const REDIS_CONNECT_DEADLINE_MS = 10_000;

/**
 * socket.io's Redis streams adapter. Chosen over the pub/sub adapter because a stream keeps what is published
 * while a reader reconnects after a Redis restart (see docs/decisions.md).
 *
 * Start-up waits at most `connectDeadlineMs` for the first connection: a Redis that is down or does not answer
 * makes `ready` reject with a {@link DependencyError} naming `REDIS_URL` and the cause, and the connection is
 * closed (node-redis would otherwise retry for good). Once connected, a lost connection is retried without end.
 */
export function createRedisAdapter(
  url: string,
  logger: Logger,
  connectDeadlineMs = REDIS_CONNECT_DEADLINE_MS,
): ClusterAdapter {
  // Required here, not imported at start-up: only a cluster on Redis loads node-redis (see docs/decisions.md).
  const load = createRequire(import.meta.url);
  const { createClient } = load('redis') as typeof Redis;
  const { createAdapter } = load('@socket.io/redis-streams-adapter') as typeof RedisStreamsAdapter;
  const client = createClient({
    url,
    socket: { connectTimeout: Math.min(5000, connectDeadlineMs) },
  });
  let lastError: unknown;
  let connectedOnce = false;
  // node-redis reconnects by itself; an unhandled 'error' event would crash the process meanwhile.
  client.on('error', (error: unknown) => {
    lastError = error;
    // Before the first connection, start-up reports the cause once; repeating it every retry says nothing.
    if (connectedOnce) logClusterError(logger, error, 'cluster Redis connection error');
  });
  let timer: NodeJS.Timeout | undefined;
  const ready = Promise.race([
    client.connect().then(() => {
      connectedOnce = true;
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        client.destroy();
        reject(new DependencyError('REDIS_URL', url, lastError ?? new Error('no answer')));
      }, connectDeadlineMs);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
  // Rejections are start-up's to report; nothing else may see them unhandled.
  ready.catch(() => undefined);
  const factory = createAdapter(client);
  return {
    kind: 'redis',
    connected: () => client.isReady,
    // Nothing is left to send once every adapter has closed, so the connection ends at once.
    adapter: releasingOnClose(factory, async () => {
      await ready.catch(() => undefined);
      if (client.isOpen) client.destroy();
    }),
    ready,
  };
}
