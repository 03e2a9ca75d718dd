import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterNode, createRunDatabase, postgresUnavailable, startCluster } from './cluster';
import { type TestNginx, nginxUnavailable, startNginx } from './nginx';
import { oneOrderPerChannel, roomAcrossProcesses } from './scenarios';

const unavailable = (await postgresUnavailable()) ?? (await nginxUnavailable());
// A silent skip would hide an untested deployment.
// eslint-disable-next-line no-console
if (unavailable) console.warn(`skipping the nginx scale tests: ${unavailable}`);

describe.skipIf(unavailable)('three processes behind nginx (deploy/nginx.conf)', () => {
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
