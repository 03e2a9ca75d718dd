import { createConnection } from 'node:net';
import { describe } from 'vitest';
import { REDIS_URL, postgresUnavailable } from './cluster';
import { clusterSuite } from './cluster-suite';

/** Undefined when Redis answers PING, else why not. */
async function redisUnavailable(): Promise<string | undefined> {
  const { hostname, port } = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(2000, () => socket.destroy(new Error('timeout')));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.end();
      resolve(
        data.toString().startsWith('+PONG') ? undefined : `Redis at ${REDIS_URL} did not PONG`,
      );
    });
    socket.once('error', (error) => resolve(`Redis at ${REDIS_URL}: ${error.message}`));
  });
}

const unavailable = (await postgresUnavailable()) ?? (await redisUnavailable());
// A silent skip would hide an untested deployment.
// eslint-disable-next-line no-console
if (unavailable) console.warn(`skipping the Redis scale tests: ${unavailable}`);

describe.skipIf(unavailable)('three processes, rooms through Redis', () => {
  clusterSuite({ redisUrl: REDIS_URL });
});
