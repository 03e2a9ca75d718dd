import { createAdapter } from '@socket.io/redis-streams-adapter';
import type { Logger } from 'pino';
import { createClient } from 'redis';
import { type ClusterAdapter, logClusterError, releasingOnClose } from './create-adapter-shared';

/**
 * socket.io's Redis streams adapter. Chosen over the pub/sub adapter because a stream keeps what is published
 * while a reader reconnects after a Redis restart (see docs/decisions.md).
 */
export function createRedisAdapter(url: string, logger: Logger): ClusterAdapter {
  const client = createClient({ url });
  // node-redis reconnects by itself; an unhandled 'error' event would crash the process meanwhile.
  client.on('error', (error) => logClusterError(logger, error, 'cluster Redis connection error'));
  const ready = client.connect().then(
    () => undefined,
    (error: unknown) => logClusterError(logger, error, 'cluster Redis connection failed'),
  );
  const factory = createAdapter(client);
  return {
    // Nothing is left to send once every adapter has closed, so the connection ends at once.
    adapter: releasingOnClose(factory, async () => {
      await ready;
      if (client.isOpen) client.destroy();
    }),
    ready,
  };
}
