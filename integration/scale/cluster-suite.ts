import { afterAll, beforeAll, it } from 'vitest';
import { type ClusterNode, createRunDatabase, startCluster } from './cluster';
import { crashMidLoad } from './crash';
import { oneOrderPerChannel, roomAcrossProcesses } from './scenarios';

/**
 * The tests every cluster passes: three processes on one PostgreSQL database, rooms shared through PostgreSQL
 * or, given `redisUrl`, Redis. Call inside a `describe`.
 */
export function clusterSuite(options: { redisUrl?: string } = {}): void {
  let nodes: ClusterNode[] = [];
  let dispose: () => Promise<void> = () => Promise.resolve();

  beforeAll(async () => {
    const database = await createRunDatabase();
    dispose = () => database.dispose();
    nodes = await startCluster(3, {
      DATABASE_URL: database.url,
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    });
  });
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await dispose();
  });

  it('shares rooms: typing, presence, messages, one reply each, REST submit, sync and stream', async () => {
    const [one, two, three] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    await roomAcrossProcesses([
      { url: one.url, transport: 'websocket' },
      { url: two.url, transport: 'polling' },
      { url: three.url, transport: 'websocket' },
    ]);
  });

  it('answers a channel in order when its messages arrive through two processes', async () => {
    const [one, two, three] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    await oneOrderPerChannel(
      { url: one.url, transport: 'websocket' },
      { url: two.url, transport: 'websocket' },
      { url: three.url, transport: 'websocket' },
    );
  });

  it('loses nothing acknowledged when a process is killed mid-load; the others post its schedule', async () => {
    const [one, two, three] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    await crashMidLoad(two, [one, three]);
  });
}
