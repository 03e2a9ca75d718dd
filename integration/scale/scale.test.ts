import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterNode,
  REDIS_URL,
  createRunDatabase,
  postgresUnavailable,
  startCluster,
} from './cluster';
import { clusterSuite } from './cluster-suite';
import { type TestNginx, nginxUnavailable, startNginx } from './nginx';
import { oneOrderPerChannel, roomAcrossProcesses } from './scenarios';

// One file, so the three clusters run one after the other (three server processes at a time on a small
// machine), not in parallel workers.

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

const noPostgres = await postgresUnavailable();
const noRedis = noPostgres ?? (await redisUnavailable());
const noNginx = noPostgres ?? (await nginxUnavailable());
// A silent skip would hide an untested deployment.
for (const reason of new Set([noPostgres, noRedis, noNginx])) {
  // eslint-disable-next-line no-console
  if (reason) console.warn(`skipping scale tests: ${reason}`);
}

describe.skipIf(noPostgres)('three processes, rooms through PostgreSQL', () => {
  clusterSuite();
});

describe.skipIf(noRedis)('three processes, rooms through Redis', () => {
  clusterSuite({ redisUrl: REDIS_URL });
});

describe.skipIf(noNginx)('three processes behind nginx (deploy/nginx.conf)', () => {
  let nodes: ClusterNode[] = [];
  let nginx: TestNginx | undefined;
  let dispose: () => Promise<void> = () => Promise.resolve();

  beforeAll(async () => {
    const database = await createRunDatabase();
    dispose = () => database.dispose();
    nodes = await startCluster(3, { DATABASE_URL: database.url });
    nginx = await startNginx(nodes.map((node) => node.url));
  });
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(nodes.map((node) => node.stop()));
    await dispose();
  });

  it('serves REST, SSE and both transports through the sticky and round-robin entries', async () => {
    const { stickyUrl, roundRobinUrl } = nginx!;
    const health = await fetch(`${stickyUrl}/api/server/health`);
    expect(health.status).toBe(200);
    await roomAcrossProcesses([
      { url: stickyUrl, transport: 'polling' },
      { url: roundRobinUrl, transport: 'websocket' },
      { url: roundRobinUrl, transport: 'websocket' },
      { url: stickyUrl, transport: 'websocket' },
      { url: roundRobinUrl, transport: 'websocket' },
    ]);
  });

  it('answers a channel in order when round robin spreads its messages over the processes', async () => {
    const { stickyUrl, roundRobinUrl } = nginx!;
    await oneOrderPerChannel(
      { url: roundRobinUrl, transport: 'websocket' },
      { url: roundRobinUrl, transport: 'websocket' },
      { url: stickyUrl, transport: 'polling' },
    );
  });
});
