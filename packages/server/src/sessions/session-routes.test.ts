/* eslint-disable @typescript-eslint/no-unsafe-call -- the answers are read loosely: each assertion checks their shape */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';

const DEFAULT_SERVER = '00000000-0000-0000-0000-000000000000';
let test: TestServer;
let agentId: string;

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${test.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json =
    response.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : undefined;
  return { status: response.status, json: json, text };
}

beforeAll(async () => {
  test = await startTestServer({ agentManagement: { enabled: true } });
  agentId = (await call('GET', '/api/agents')).json.data.agents[0].id;
});
afterAll(() => test[Symbol.asyncDispose]());

describe('elizaOS sessions', () => {
  it('creates a session, answers a message as elizaOS does, and lists its messages', async () => {
    const userId = randomUUID();
    const created = await call('POST', '/api/messaging/sessions', {
      agentId,
      userId,
      metadata: { platform: 'test' },
    });
    expect(created.status).toBe(201);
    const session = created.json.data;
    expect(session).toMatchObject({ agentId, userId, metadata: { platform: 'test' } });
    const { sessionId } = session;

    const sent = await call('POST', `/api/messaging/sessions/${sessionId}/messages`, {
      content: 'I feel happy today',
      transport: 'http',
    });
    expect(sent.status).toBe(201);
    expect(sent.json.data).toMatchObject({
      success: true,
      userMessage: { content: 'I feel happy today', authorId: userId },
      agentResponse: { text: expect.any(String), actions: expect.any(Array) },
    });
    expect(sent.json.data.agentResponse.text.length).toBeGreaterThan(0);

    const quiet = await call('POST', `/api/messaging/sessions/${sessionId}/messages`, {
      content: 'and now?',
    });
    expect(quiet.status).toBe(201);
    expect(quiet.json.data.agentResponse).toBeUndefined();

    const history = await call('GET', `/api/messaging/sessions/${sessionId}/messages?limit=2`);
    expect(history.status).toBe(200);
    expect(history.json.data.messages).toHaveLength(2);
    expect(history.json.data.hasMore).toBe(true);
    const all = await call('GET', `/api/messaging/sessions/${sessionId}/messages?limit=10`);
    const messages = all.json.data.messages as { isAgent: boolean; content: string }[];
    expect(messages.filter((m) => m.isAgent).length).toBeGreaterThanOrEqual(1);
    expect(messages.map((m) => m.content)).toContain('I feel happy today');
    // `before` as epoch ms (elizaOS) and as ISO.
    const before = Date.parse(all.json.data.messages.at(-1).createdAt) + 1;
    const older = await call(
      'GET',
      `/api/messaging/sessions/${sessionId}/messages?before=${before}`,
    );
    expect(older.json.data.messages).toHaveLength(1);
    const iso = new Date(before).toISOString();
    expect(
      (await call('GET', `/api/messaging/sessions/${sessionId}/messages?before=${iso}`)).status,
    ).toBe(200);
    expect(
      (await call('GET', `/api/messaging/sessions/${sessionId}/messages?before=soon`)).status,
    ).toBe(400);

    expect((await call('GET', `/api/messaging/sessions/${sessionId}`)).json.data).toMatchObject({
      sessionId,
      agentId,
      userId,
    });
    const list = await call('GET', '/api/messaging/sessions');
    expect(list.json.data.total).toBeGreaterThanOrEqual(1);
    expect(list.json.data.sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(
      sessionId,
    );
    expect((await call('GET', '/api/messaging/sessions/health')).json.data).toMatchObject({
      status: 'healthy',
      activeSessions: expect.any(Number),
    });

    expect((await call('DELETE', `/api/messaging/sessions/${sessionId}`)).status).toBe(200);
    expect((await call('GET', `/api/messaging/sessions/${sessionId}`)).status).toBe(404);
    const gone = await call('POST', `/api/messaging/sessions/${sessionId}/messages`, {
      content: 'x',
    });
    expect(gone.status).toBe(404);
  });

  it('refuses bad requests with a 4xx and a stopped agent with 409', async () => {
    expect((await call('POST', '/api/messaging/sessions', { agentId, userId: 'me' })).status).toBe(
      400,
    );
    const unknown = await call('POST', '/api/messaging/sessions', {
      agentId: randomUUID(),
      userId: randomUUID(),
    });
    expect(unknown.status).toBe(404);
    expect((await call('GET', '/api/messaging/sessions/nope')).status).toBe(400);
    const { sessionId } = (
      await call('POST', '/api/messaging/sessions', { agentId, userId: randomUUID() })
    ).json.data;
    const path = `/api/messaging/sessions/${sessionId}/messages`;
    expect((await call('POST', path, { content: '' })).status).toBe(400);
    expect((await call('POST', path, { content: 'x', transport: 'pigeon' })).status).toBe(400);
    expect((await call('POST', `/api/agents/${agentId}/stop`)).status).toBe(200);
    const refused = await call('POST', path, { content: 'hello', transport: 'http' });
    expect(refused.status).toBe(409);
    expect((await call('POST', `/api/agents/${agentId}/start`)).status).toBe(200);
    expect((await call('POST', path, { content: 'hello', transport: 'http' })).status).toBe(201);
  });

  it('streams a session reply as server-sent events', async () => {
    const { sessionId } = (
      await call('POST', '/api/messaging/sessions', { agentId, userId: randomUUID() })
    ).json.data;
    const sse = await call('POST', `/api/messaging/sessions/${sessionId}/messages`, {
      content: 'hello',
      transport: 'sse',
    });
    expect(sse.status).toBe(200);
    expect(sse.text).toContain('event: user_message');
    expect(sse.text).toContain('event: done');
  });
});

describe('message servers', () => {
  it('has the default server, with every agent and the channels', async () => {
    expect((await call('GET', '/api/messaging/message-servers')).json.data).toMatchObject({
      messageServers: [{ id: DEFAULT_SERVER, name: expect.any(String) }],
    });
    expect((await call('GET', '/api/messaging/message-server/current')).json.data).toEqual({
      messageServerId: DEFAULT_SERVER,
    });
    expect(
      (await call('GET', `/api/messaging/message-servers/${DEFAULT_SERVER}/agents`)).json.data,
    ).toEqual({ messageServerId: DEFAULT_SERVER, agents: [agentId] });
    expect(
      (await call('GET', `/api/messaging/agents/${agentId}/message-servers`)).json.data,
    ).toEqual({ agentId, messageServers: [DEFAULT_SERVER] });
    const channelId = randomUUID();
    await call('POST', `/api/messaging/channels/${channelId}/messages`, {
      text: 'hi',
      entityId: 'someone',
      mode: 'sync',
    });
    const { channelId: sessionChannel } = (
      await call('POST', '/api/messaging/sessions', { agentId, userId: randomUUID() })
    ).json.data;
    const channels = await call('GET', `/api/messaging/message-servers/${DEFAULT_SERVER}/channels`);
    expect(channels.json.data.channels.map((c: { id: string }) => c.id)).toContain(channelId);
    // A session's channel is a DM named after its agent, the agent answering in it.
    expect(channels.json.data.channels).toContainEqual(
      expect.objectContaining({
        id: sessionChannel,
        type: 'DM',
        name: 'Session with Eliza',
        agentId,
      }),
    );
  });

  it('answers 404 for another server or agent and 400 for a bad id', async () => {
    const other = randomUUID();
    expect((await call('GET', `/api/messaging/message-servers/${other}/agents`)).status).toBe(404);
    expect((await call('GET', `/api/messaging/message-servers/${other}/channels`)).status).toBe(
      404,
    );
    expect((await call('GET', `/api/messaging/agents/${other}/message-servers`)).status).toBe(404);
    expect((await call('GET', '/api/messaging/message-servers/x/channels')).status).toBe(400);
  });
});
