import { ApiError, ElizaClient } from '@elizaos/api-client';
import { definePlugin, defineRoute, type Plugin } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

/**
 * elizaOS's own client (`@elizaos/api-client` 1.7.2) against a real Parley server: its `server.*` calls and
 * `agents.getAgentPanels`. The token is set, so each call goes through the same key check as the rest.
 */
const TOKEN = 'eliza-server-token';

/** A panel (public, named GET), and routes that are not panels: unnamed, not public, not a GET. */
function panelPlugin(): Plugin {
  return definePlugin({
    name: 'panels',
    description: 'routes of every kind, only one of them a panel',
    routes: [
      defineRoute({
        type: 'GET',
        path: '/panels-fixture/board',
        name: 'Board',
        public: true,
        handler: (_request, response, runtime) => {
          response.status(200).json({ board: runtime.agentId });
        },
      }),
      defineRoute({
        type: 'GET',
        path: '/panels-fixture/unnamed',
        public: true,
        handler: (_request, response) => response.status(200).json({}),
      }),
      defineRoute({
        type: 'GET',
        path: '/panels-fixture/private',
        name: 'Private',
        handler: (_request, response) => response.status(200).json({}),
      }),
      defineRoute({
        type: 'POST',
        path: '/panels-fixture/post',
        name: 'Poster',
        public: true,
        handler: (_request, response) => response.status(200).json({}),
      }),
    ],
  });
}

let running: TestServer;
let client: ElizaClient;
let withPanels: string;
let withoutPanels: string;

beforeAll(async () => {
  running = await startServer({
    authToken: TOKEN,
    characters: [{ name: 'Eliza' }, { name: 'Plain' }],
    // Only the first agent loads the plugin: the second has no panels.
    plugins: (agent) => (agent.character.name === 'Eliza' ? [panelPlugin()] : []),
    agentManagement: { enabled: true },
  });
  client = new ElizaClient({ baseUrl: running.url, apiKey: TOKEN });
  const { agents } = await client.agents.listAgents();
  withPanels = agents.find((agent) => agent.name === 'Eliza')!.id!;
  withoutPanels = agents.find((agent) => agent.name === 'Plain')!.id!;
});
afterAll(() => running?.server.stop());

async function statusOf(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
  return undefined;
}

describe('@elizaos/api-client 1.7.2: server', () => {
  it('server.ping', async () => {
    const before = Date.now();
    const pong = (await client.server.ping()) as { pong: boolean; timestamp: number };
    expect(pong.pong).toBe(true);
    expect(pong.timestamp).toBeGreaterThanOrEqual(before);
  });

  it('server.hello', async () => {
    const hello = await client.server.hello();
    expect(hello.message).toEqual(expect.any(String));
    expect(hello.message.length).toBeGreaterThan(0);
  });

  it('server.getStatus counts the agents, and a stopped one as inactive', async () => {
    const status = await client.server.getStatus();
    expect(status.agents).toEqual({ total: 2, active: 2, inactive: 0 });
    expect(status.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(status.memory.used).toBeGreaterThan(0);
    expect(status.memory.used).toBeLessThanOrEqual(status.memory.total);
    expect(status.memory.percentage).toBeGreaterThan(0);
    expect(status.memory.percentage).toBeLessThanOrEqual(100);
    expect(status.uptime).toBeGreaterThanOrEqual(0);

    await client.agents.stopAgent(withoutPanels as never);
    try {
      expect((await client.server.getStatus()).agents).toEqual({
        total: 2,
        active: 1,
        inactive: 1,
      });
    } finally {
      await client.agents.startAgent(withoutPanels as never);
    }
  });

  it('every server.* call needs the key when the server has one', async () => {
    const stranger = new ElizaClient({ baseUrl: running.url, apiKey: 'wrong-key' });
    const keyless = new ElizaClient({ baseUrl: running.url });
    const statuses = await Promise.all(
      [stranger, keyless].flatMap((c) => [
        statusOf(c.server.ping()),
        statusOf(c.server.hello()),
        statusOf(c.server.getStatus()),
        statusOf(c.agents.getAgentPanels(withPanels as never)),
      ]),
    );
    expect(statuses).toEqual(Array(8).fill(401));
  });
});

describe('@elizaos/api-client 1.7.2: agents.getAgentPanels', () => {
  it('lists only public named GET routes, each opening as this agent', async () => {
    const { panels } = await client.agents.getAgentPanels(withPanels as never);
    expect(panels).toEqual([
      {
        id: 'Board-0',
        name: 'Board',
        url: `/panels-fixture/board?agentId=${withPanels}`,
        type: 'plugin',
      },
    ]);
    // A browser opens the panel without the key: it is public.
    const response = await fetch(`${running.url}${panels[0]!.url}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ board: withPanels });
  });

  it('an agent without plugins has none', async () => {
    expect((await client.agents.getAgentPanels(withoutPanels as never)).panels).toEqual([]);
  });

  it('an unknown agent is 404 and a malformed id 400', async () => {
    const statuses = await Promise.all([
      statusOf(client.agents.getAgentPanels('00000000-0000-4000-8000-000000000000')),
      statusOf(client.agents.getAgentPanels('not-an-id' as never)),
      statusOf(client.agents.getAgentPanels('..%2F..%2Fapi%2Fserver%2Fping' as never)),
    ]);
    expect(statuses).toEqual([404, 400, 400]);
  });
});
