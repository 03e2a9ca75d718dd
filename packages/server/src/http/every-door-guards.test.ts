import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createOpenAICompatibleModel } from '../models';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../models/testing/fake-openai-server';

const TOKEN = 'every-door-token';
const BODY_LIMIT = 4096;
const BURST = 12;

/** A door that starts a reply: where it is, and a body it accepts carrying `text`. */
interface Door {
  name: string;
  path: (agentId: string, sessionId: string) => string;
  body: (agentId: string, text: string) => unknown;
}

const doors: Door[] = [
  {
    name: 'channel message',
    path: () => `/api/messaging/channels/${randomUUID()}/messages`,
    body: (_agentId, text) => ({ text, entityId: 'door-user', mode: 'sync' }),
  },
  {
    name: 'submit',
    path: () => '/api/messaging/submit',
    body: (_agentId, text) => ({ channel_id: randomUUID(), author_id: 'door-user', content: text }),
  },
  {
    name: 'elizaOS jobs',
    path: () => '/api/messaging/jobs',
    body: (agentId, text) => ({ agentId, userId: randomUUID(), content: text }),
  },
  {
    name: 'elizaOS session message',
    path: (_agentId, sessionId) => `/api/messaging/sessions/${sessionId}/messages`,
    body: (_agentId, text) => ({ content: text }),
  },
  {
    name: 'AI SDK UI chat',
    path: (agentId) => `/api/messaging/ui-chat/${agentId}`,
    body: (_agentId, text) => ({
      id: randomUUID(),
      messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] }],
    }),
  },
  {
    name: 'OpenAI chat completions',
    path: () => '/v1/chat/completions',
    body: (agentId, text) => ({ model: agentId, messages: [{ role: 'user', content: text }] }),
  },
  {
    name: 'OpenAI responses',
    path: () => '/v1/responses',
    body: (agentId, text) => ({ model: agentId, input: text }),
  },
  {
    name: 'A2A',
    path: (agentId) => `/a2a/${agentId}`,
    body: (_agentId, text) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text }],
        },
      },
    }),
  },
  {
    name: 'MCP',
    path: () => '/mcp',
    body: (_agentId, text) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'door-client', version: '1.0.0' },
        _meta: { note: text },
      },
    }),
  },
];

/**
 * The guards' re-check across every door that starts a reply (issue 41): each face is one more way in, and each
 * must meet the same token check, body bound and shared messaging budget as the channel API, from outside.
 */
describe('every door that starts a reply, behind the same guards', () => {
  let upstream: FakeOpenAIServer;
  let test: TestServer;
  let agentId: string;
  let sessionId: string;
  /** The clock of the rate limit: it stands still, so a budget spent stays spent. */
  const now = 1_000_000;

  beforeAll(async () => {
    upstream = await startFakeOpenAIServer({});
    test = await startTestServer({
      model: createOpenAICompatibleModel({
        baseUrl: upstream.url,
        model: 'fake',
        timeoutMs: 30_000,
      }),
      authToken: TOKEN,
      bodyLimit: BODY_LIMIT,
      trustProxy: ['loopback'],
      rateLimit: { burst: BURST, perSecond: 0.001, limitLoopback: true, now: () => now },
    });
    agentId = test.server.agents.defaultAgent.agentId;
    const session = await fetch(`${test.url}/api/messaging/sessions`, {
      method: 'POST',
      headers: {
        'x-api-key': TOKEN,
        'content-type': 'application/json',
        'x-forwarded-for': '198.51.100.1',
      },
      body: JSON.stringify({ agentId, userId: randomUUID() }),
    });
    expect(session.status).toBe(201);
    sessionId = ((await session.json()) as { data: { sessionId: string } }).data.sessionId;
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
    await upstream?.close();
  });

  const send = (door: Door, options: { token?: string; text?: string; from: string }) =>
    fetch(`${test.url}${door.path(agentId, sessionId)}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-forwarded-for': options.from,
        ...(options.token === undefined ? {} : { 'x-api-key': options.token }),
      },
      body: JSON.stringify(door.body(agentId, options.text ?? 'hello')),
    });

  it('refuses a request without the token, or with a wrong one, at every door: 401 and no model call', async () => {
    const before = upstream.requests;
    const answers = await Promise.all(
      doors.flatMap((door, index) => [
        send(door, { from: `203.0.113.${index + 1}` }),
        send(door, { token: 'not-the-token', from: `203.0.113.${index + 101}` }),
      ]),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 401));
    for (const answer of answers) expect(await answer.text()).not.toContain(TOKEN);
    expect(upstream.requests).toBe(before);
  });

  it('refuses a body past the bound at every door with 413, whatever the face', async () => {
    const before = upstream.requests;
    const answers = await Promise.all(
      doors.map((door, index) =>
        send(door, {
          token: TOKEN,
          text: 'x'.repeat(BODY_LIMIT * 2),
          from: `192.0.2.${index + 1}`,
        }),
      ),
    );
    expect(
      Object.fromEntries(doors.map((door, index) => [door.name, answers[index]!.status])),
    ).toEqual(Object.fromEntries(doors.map((door) => [door.name, 413])));
    await Promise.all(answers.map((answer) => answer.text()));
    expect(upstream.requests).toBe(before);
  });

  it('one budget for all doors: a client spreading a flood over every face gets its burst, another is served', async () => {
    const attacker = '198.51.100.66';
    const flood = Array.from({ length: BURST * 3 }, (_, index) => doors[index % doors.length]!);
    const probe = doors[0]!;
    const [answers, during] = await Promise.all([
      Promise.all(flood.map((door) => send(door, { token: TOKEN, from: attacker }))),
      send(probe, { token: TOKEN, from: '198.51.100.7' }),
    ]);
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(flood.length - BURST);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    for (const answer of answers.filter((item) => item.status === 429))
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(during.status).toBe(200);
    // After the flood, the attacker is still refused at a door it has not used yet; the other client is served.
    const [again, after] = await Promise.all([
      send(doors.at(-1)!, { token: TOKEN, from: attacker }),
      send(probe, { token: TOKEN, from: '198.51.100.8' }),
    ]);
    expect(again.status).toBe(429);
    expect(after.status).toBe(200);
    await Promise.all([...answers, during, again, after].map((answer) => answer.text()));
  });
});
