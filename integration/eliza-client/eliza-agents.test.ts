import { randomUUID } from 'node:crypto';
import { ElizaClient } from '@elizaos/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

/**
 * elizaOS's own client (`@elizaos/api-client` 1.7.2, from npm) against a real Parley server: the agents,
 * sessions and message-server calls, one `it` each, asserting the shapes elizaOS's types promise. The token is
 * set, so the client's `X-API-KEY` is exercised too.
 */
const TOKEN = 'eliza-client-token';
const DEFAULT_SERVER = '00000000-0000-0000-0000-000000000000';
const SECRET = 'sk-eliza-client-secret';

let running: TestServer;
let client: ElizaClient;
let defaultAgentId: string;
let createdId: string;
let sessionId: string;

beforeAll(async () => {
  running = await startServer({
    authToken: TOKEN,
    characters: [{ name: 'Eliza', bio: ['The default agent.'] }],
    agentManagement: { enabled: true },
  });
  client = new ElizaClient({ baseUrl: running.url, apiKey: TOKEN });
});
afterAll(() => running?.server.stop());

describe('@elizaos/api-client 1.7.2: agents', () => {
  it('agents.listAgents', async () => {
    const { agents } = await client.agents.listAgents();
    expect(agents).toEqual([
      expect.objectContaining({ id: expect.any(String), name: 'Eliza', status: 'active' }),
    ]);
    defaultAgentId = agents[0]!.id!;
  });

  it('agents.getAgent', async () => {
    const agent = await client.agents.getAgent(defaultAgentId as never);
    expect(agent).toMatchObject({ id: defaultAgentId, name: 'Eliza', bio: ['The default agent.'] });
    expect(agent.status).toBe('active');
    expect(typeof agent.createdAt).toBe('number');
    expect(typeof agent.updatedAt).toBe('number');
  });

  it('agents.createAgent', async () => {
    const agent = await client.agents.createAgent({
      characterJson: {
        name: 'Helper',
        bio: ['Made by the elizaOS client.'],
        secrets: { KEY: SECRET },
      },
    });
    expect(agent).toMatchObject({ name: 'Helper', status: 'active' });
    expect(JSON.stringify(agent)).not.toContain(SECRET);
    createdId = agent.id!;
    expect(createdId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('agents.updateAgent', async () => {
    const agent = await client.agents.updateAgent(createdId as never, {
      name: 'Helper Two',
      bio: ['Renamed.'],
    });
    expect(agent).toMatchObject({ id: createdId, name: 'Helper Two', bio: ['Renamed.'] });
  });

  it('agents.stopAgent', async () => {
    const result = await client.agents.stopAgent(createdId as never);
    expect(result.status).toBe('inactive');
    expect((await client.agents.getAgent(createdId as never)).status).toBe('inactive');
  });

  it('agents.startAgent', async () => {
    const result = await client.agents.startAgent(createdId as never);
    expect(result.status).toBe('active');
  });

  it('agents.deleteAgent', async () => {
    await expect(client.agents.deleteAgent(createdId as never)).resolves.toEqual({ success: true });
    const error = await client.agents
      .getAgent(createdId as never)
      .catch((reason: unknown) => reason);
    expect(error).toMatchObject({ name: 'ApiError', status: 404, code: 'NOT_FOUND' });
  });
});

describe('@elizaos/api-client 1.7.2: sessions', () => {
  it('sessions.createSession', async () => {
    const userId = randomUUID();
    const session = await client.sessions.createSession({
      agentId: defaultAgentId,
      userId,
      metadata: { platform: 'vitest' },
    });
    expect(session).toMatchObject({
      sessionId: expect.any(String),
      agentId: defaultAgentId,
      userId,
      metadata: { platform: 'vitest' },
    });
    expect(Number.isNaN(Date.parse(String(session.createdAt)))).toBe(false);
    sessionId = session.sessionId;
  });

  it('sessions.sendMessage', async () => {
    const response = await client.sessions.sendMessage(sessionId, {
      content: 'I am a little tired today',
      transport: 'http',
    });
    expect(response.success).toBe(true);
    expect(response.userMessage).toMatchObject({
      id: expect.any(String),
      content: 'I am a little tired today',
    });
    expect(response.agentResponse?.text.length).toBeGreaterThan(0);
  });

  it('sessions.getMessages', async () => {
    const { messages, hasMore } = await client.sessions.getMessages(sessionId, {
      limit: 10,
      before: Date.now() + 1000,
    });
    expect(hasMore).toBe(false);
    expect(messages).toHaveLength(2);
    expect(messages.map((message) => message.isAgent).sort()).toEqual([false, true]);
    for (const message of messages) {
      expect(message).toMatchObject({ id: expect.any(String), content: expect.any(String) });
    }
  });
});

describe('@elizaos/api-client 1.7.2: message servers', () => {
  it('messaging.listMessageServers', async () => {
    const { messageServers } = await client.messaging.listMessageServers();
    expect(messageServers).toEqual([
      expect.objectContaining({
        id: DEFAULT_SERVER,
        name: expect.any(String),
        sourceType: expect.any(String),
      }),
    ]);
  });

  it('messaging.getCurrentMessageServer', async () => {
    await expect(client.messaging.getCurrentMessageServer()).resolves.toEqual({
      messageServerId: DEFAULT_SERVER,
    });
  });

  it('messaging.getMessageServerChannels', async () => {
    const { channels } = await client.messaging.getMessageServerChannels(DEFAULT_SERVER);
    // The session's channel holds its messages.
    expect(channels.length).toBeGreaterThanOrEqual(1);
    for (const channel of channels) {
      expect(channel).toMatchObject({
        id: expect.any(String),
        messageServerId: DEFAULT_SERVER,
        name: expect.any(String),
        type: expect.any(String),
      });
    }
  });
});
