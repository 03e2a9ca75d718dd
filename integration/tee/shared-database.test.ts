import { randomUUID } from 'node:crypto';
import { createLogger, createServer, parseTeeConfig, type ParleyServer } from '@parley/server';
import { createTeeClient, verifyAgentsAttestation } from '@parley/tee';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';
const name = `parley_tee_scale_${randomUUID().replace(/-/g, '')}`;
const url = `postgres://postgres@127.0.0.1:5432/${name}`;
const characters = [{ name: 'Ada' }, { name: 'Bob' }];

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const startServer = async () => {
  const server = createServer({
    port: 0,
    logger: createLogger('silent'),
    characters,
    tee: parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: 'one salt for the cluster' }),
    database: { kind: 'postgres', url },
  });
  await server.start();
  return server;
};

/** Server processes scaled out over one PostgreSQL, checked the way a third party would check them. */
describe('TEE servers sharing one PostgreSQL', () => {
  const servers: ParleyServer[] = [];

  beforeAll(() => admin(`CREATE DATABASE ${name}`));
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await admin(`DROP DATABASE IF EXISTS ${name}`);
  });

  it('report the same registrations for the same agents, each verifiable', async () => {
    servers.push(...(await Promise.all([startServer(), startServer()])));
    const lists = await Promise.all(
      servers.map((server) => createTeeClient({ baseUrl: server.url }).agents('scale-nonce')),
    );
    expect(lists[1]!.agents).toEqual(lists[0]!.agents);
    for (const list of lists) {
      expect(
        verifyAgentsAttestation(list, { nonce: 'scale-nonce', allowSimulator: true }),
      ).toMatchObject({
        valid: true,
      });
    }
    // A restarted process answers with the records already stored.
    await servers.pop()!.stop();
    servers.push(await startServer());
    const after = await createTeeClient({ baseUrl: servers[1]!.url }).agents();
    expect(after.agents).toEqual(lists[0]!.agents);
  });
});
