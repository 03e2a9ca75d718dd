import { createRequire } from 'node:module';
import type * as Redis from 'redis';
import { DependencyError } from './dependency-error';

/**
 * Connects to the Redis at `url` once, sends PING and disconnects, within `timeoutMs`; never retries. Resolves
 * when Redis answered, else rejects with a {@link DependencyError} naming `REDIS_URL` and the cause (for
 * `parley doctor`; start-up says the same through the room adapter).
 */
export async function probeRedis(url: string, timeoutMs = 5000): Promise<void> {
  let lastError: unknown;
  // Required here, not imported at start-up: node-redis is megabytes a server without Redis never needs.
  const { createClient } = createRequire(import.meta.url)('redis') as typeof Redis;
  const client = createClient({
    url,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: false },
  });
  client.on('error', (error: unknown) => (lastError = error));
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer')), timeoutMs);
      }),
    ]);
  } catch (error) {
    throw new DependencyError('REDIS_URL', url, lastError ?? error);
  } finally {
    clearTimeout(timer);
    if (client.isOpen) client.destroy();
  }
}
