/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- the answers are read loosely: each assertion checks their shape */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresDatabase,
  postgresUnavailableReason,
  type TestDatabase,
} from '../../test/databases';
import { createServer, type ParleyServer } from '../create-server';
import { createLogger } from '../logger';

/**
 * Agents and sessions across processes: two servers on one PostgreSQL database, as when scaled out. An agent
 * made on one answers on the other, a stop on one is obeyed by the other, a session made on one is served by
 * the other. The agent poll is set far beyond the test, so only the notice (or a look on a miss) can carry it.
 */
const reason = await postgresUnavailableReason();
// eslint-disable-next-line no-console
if (reason) console.warn(`skipping the agents-across-processes tests: ${reason}`);

describe.skipIf(reason !== undefined)('agents across processes sharing PostgreSQL', () => {
  let database: TestDatabase;
  const servers: ParleyServer[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase();
    for (let index = 0; index < 2; index += 1) {
      const server = createServer({
        port: 0,
        logger: createLogger('silent'),
        env: {},
        database: database.location,
        agentManagement: { enabled: true, syncIntervalMs: 600_000 },
      });
      servers.push(server);
      urls.push((await server.start()).url);
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.dispose();
  });

  async function call(url: string, method: string, path: string, body?: unknown) {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  }

  const converse = (url: string, agentId: string) =>
    call(url, 'POST', `/api/messaging/channels/${randomUUID()}/messages`, {
      text: 'hello',
      entityId: 'someone',
      agentId,
      mode: 'sync',
    });

  /** Asks until `check` holds (a notice crosses processes asynchronously), at most ~10 s. */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the other process never saw the change');
  }

  it('an agent created on one process is listed and answers on the other, and obeys a stop there', async () => {
    const [one, two] = urls as [string, string];
    const created = await call(one, 'POST', '/api/agents', { name: 'Shared', bio: 'both' });
    expect(created.status).toBe(201);
    const id = created.json.data.id as string;

    await eventually(async () =>
      (await call(two, 'GET', '/api/agents')).json.data.agents.some(
        (agent: { id: string }) => agent.id === id,
      ),
    );
    const reply = await converse(two, id);
    expect(reply.status).toBe(200);
    expect(reply.json.agentResponse.text.length).toBeGreaterThan(0);

    expect((await call(one, 'POST', `/api/agents/${id}/stop`)).status).toBe(200);
    await eventually(async () => (await converse(two, id)).status === 409);
    expect((await call(two, 'POST', `/api/agents/${id}/start`)).status).toBe(200);
    await eventually(async () => (await converse(one, id)).status === 200);

    expect((await call(two, 'DELETE', `/api/agents/${id}`)).status).toBe(204);
    await eventually(async () => (await call(one, 'GET', `/api/agents/${id}`)).status === 404);
  });

  it('a session created on one process is served by the other', async () => {
    const [one, two] = urls as [string, string];
    const agentId = (await call(one, 'GET', '/api/agents')).json.data.agents[0].id as string;
    const userId = randomUUID();
    const { sessionId } = (await call(one, 'POST', '/api/messaging/sessions', { agentId, userId }))
      .json.data;
    const sent = await call(two, 'POST', `/api/messaging/sessions/${sessionId}/messages`, {
      content: 'hello from the other side',
      transport: 'http',
    });
    expect(sent.status).toBe(201);
    expect(sent.json.data.agentResponse.text.length).toBeGreaterThan(0);
    const messages = await call(one, 'GET', `/api/messaging/sessions/${sessionId}/messages`);
    expect(messages.json.data.messages).toHaveLength(2);
  });
});
