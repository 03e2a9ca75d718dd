import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../storage/create-database';
import { createDatabaseTeeAgentStore } from './database-tee-agent-store';
import { parseTeeConfig } from '../config/tee-settings';
import { createTeeService } from './tee-service';
import { createCapturingLogger } from './test-support';

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';
const AGENTS = [
  { agentId: '0b0e4c35-3f43-5c5b-9a61-2c3ad0f6c0f1', name: 'Eliza' },
  { agentId: '6f1c2a4e-8d2b-5e0a-b7f3-4c9d1e2f3a4b', name: 'Ada' },
];
const config = parseTeeConfig({
  TEE_MODE: 'LOCAL',
  WALLET_SECRET_SALT: 'shared salt for processes',
});

/** Several server processes sharing one PostgreSQL, as when scaled out behind a load balancer. */
describe('TEE registrations in a shared PostgreSQL', () => {
  const name = `parley_tee_${randomUUID().replace(/-/g, '')}`;
  const databases: Database[] = [];

  async function admin(sql: string) {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  /** A "process": its own database handle and TEE service, with its own clock. */
  async function processWithClock(clock: number) {
    const database = createDatabase({
      kind: 'postgres',
      url: `postgres://postgres@127.0.0.1:5432/${name}`,
    });
    databases.push(database);
    await database.migrate();
    const store = createDatabaseTeeAgentStore(database.db);
    return createTeeService({
      config,
      logger: createCapturingLogger().logger,
      store,
      clock: () => clock,
    });
  }

  beforeAll(() => admin(`CREATE DATABASE ${name}`));
  afterAll(async () => {
    await Promise.all(databases.map((database) => database.close()));
    await admin(`DROP DATABASE IF EXISTS ${name}`);
  });

  it('registers each agent once, however many processes start at once, and all report the same', async () => {
    const processes = await Promise.all([1000, 2000, 3000].map(processWithClock));
    const registered = await Promise.all(processes.map((tee) => tee.register(AGENTS)));
    expect(registered[1]).toEqual(registered[0]);
    expect(registered[2]).toEqual(registered[0]);
    const lists = await Promise.all(processes.map((tee) => tee.listAgents()));
    expect(lists.map((list) => list.agents)).toEqual([
      lists[0]!.agents,
      lists[0]!.agents,
      lists[0]!.agents,
    ]);
    // One of the clocks won; every process tells the same createdAt.
    expect([1000, 2000, 3000]).toContain(lists[0]!.agents[0]!.createdAt);
    await Promise.all(processes.map((tee) => tee.close()));
  });

  it('keeps the registrations when a process restarts, and when a new one joins', async () => {
    const first = await processWithClock(5000);
    const before = (await first.register(AGENTS)).map((agent) => agent.createdAt);
    await first.close();
    const [restarted, joined] = await Promise.all([processWithClock(6000), processWithClock(7000)]);
    expect((await restarted.register(AGENTS)).map((agent) => agent.createdAt)).toEqual(before);
    expect(await joined.register(AGENTS)).toEqual(await restarted.register(AGENTS));
    expect(before.every((createdAt) => createdAt < 5000)).toBe(true);
  });
});
