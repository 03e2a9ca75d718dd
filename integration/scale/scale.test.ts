import { request as httpRequest } from 'node:http';
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

/** One request to nginx from `localAddress` with the Host (and other headers) given. */
function through(
  url: string,
  path: string,
  localAddress: string,
  headers: Record<string, string>,
): Promise<{ status: number; retryAfter: string | undefined }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path, localAddress, headers, agent: false },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: response.headers['retry-after'],
          }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe.skipIf(noNginx)('behind nginx with a public name, configured by settings alone', () => {
  let nodes: ClusterNode[] = [];
  let nginx: TestNginx | undefined;
  let dispose: () => Promise<void> = () => Promise.resolve();
  const publicHost = { host: 'chat.example.com' };
  const history = '/api/messaging/channels/3f2504e0-4f89-41d3-9a0c-0305e82c3301/messages';

  beforeAll(async () => {
    const database = await createRunDatabase();
    dispose = () => database.dispose();
    nodes = await startCluster(3, {
      DATABASE_URL: database.url,
      // nginx runs on this machine; its clients here are loopback addresses standing in for remote ones.
      TRUST_PROXY: '127.0.0.1',
      ALLOWED_HOSTS: 'chat.example.com',
      RATE_LIMIT_BURST: '5',
      RATE_LIMIT_PER_SECOND: '0.01',
      LIMIT_LOOPBACK: 'true',
    });
    nginx = await startNginx(nodes.map((node) => node.url));
  });
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(nodes.map((node) => node.stop()));
    await dispose();
  });

  it('serves the public name and refuses a foreign one', async () => {
    const { stickyUrl } = nginx!;
    expect((await through(stickyUrl, '/api/server/health', '127.0.0.2', publicHost)).status).toBe(
      200,
    );
    const foreign = await through(stickyUrl, history, '127.0.0.2', { host: 'evil.example' });
    expect(foreign.status).toBe(403);
  });

  it('limits each client on its own address: 429 with Retry-After for the noisy one, others served', async () => {
    const { stickyUrl } = nginx!;
    // The noisy client writes a new X-Forwarded-For each time: nginx appends its real address after it.
    const noisy = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        through(stickyUrl, history, '127.0.0.10', {
          ...publicHost,
          'x-forwarded-for': `198.51.100.${index}`,
        }),
      ),
    );
    expect(noisy.filter((answer) => answer.status === 200)).toHaveLength(5);
    const limited = noisy.filter((answer) => answer.status === 429);
    expect(limited).toHaveLength(5);
    expect(Number(limited[0]!.retryAfter)).toBeGreaterThanOrEqual(1);
    const others = await Promise.all(
      ['127.0.0.11', '127.0.0.12', '127.0.0.13'].map((address) =>
        through(stickyUrl, history, address, publicHost),
      ),
    );
    expect(others.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });

  it('gives a client that skips the proxy and writes its own X-Forwarded-For nothing', async () => {
    // Straight to one process, as a client that can reach it would: it is no trusted proxy, so its header is
    // ignored and its own address is limited, however it rotates the header.
    const direct = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        through(nodes[0]!.url, history, '127.0.0.20', {
          host: 'chat.example.com',
          'x-forwarded-for': `203.0.113.${index}`,
        }),
      ),
    );
    expect(direct.filter((answer) => answer.status === 429)).toHaveLength(5);
  });
});
