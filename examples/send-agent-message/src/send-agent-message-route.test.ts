import { runPluginTests, startTestServer, type TestServer } from '@parley/plugin-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAgentMessagePlugin } from './send-agent-message-plugin';

const TOKEN = 'server-token';
// Port 9 (discard) has no listener here: submitting from this agent fails to connect.
const characters = [
  { name: 'Courier' },
  { name: 'Stranded', settings: { SERVER_URL: 'http://127.0.0.1:9' } },
];
let server: TestServer;

beforeAll(async () => {
  // With an API key required, the submit call only succeeds if the helper sends SERVER_AUTH_TOKEN.
  server = await startTestServer(sendAgentMessagePlugin, { characters, authToken: TOKEN });
});
afterAll(() => server?.stop());

function send(body: unknown, agent = 0) {
  return fetch(`${server.url}/send-agent-message?agentId=${server.agents[agent]!.agentId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TOKEN },
    body: JSON.stringify(body),
  });
}

describe('POST /send-agent-message', () => {
  it('posts the message as the agent through the messaging interface and answers its id', async () => {
    const channelId = crypto.randomUUID();
    const response = await send({
      channelId,
      message: 'Deploy finished',
      metadata: { thought: 'They will want to know', actions: ['REPLY', 'NOTIFY'], build: 42 },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { messageId: string };
    expect(body).toEqual({ success: true, messageId: expect.any(String), message: 'Message sent' });

    const messages = await server.listMessages(channelId);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      id: body.messageId,
      content: 'Deploy finished',
      author_id: server.runtime.agentId,
      source_type: 'agent_response',
      raw_message: {
        text: 'Deploy finished',
        thought: 'They will want to know',
        actions: ['REPLY', 'NOTIFY'],
      },
      metadata: { build: 42, agent_id: server.runtime.agentId, agentName: 'Courier' },
    });
    expect(messages[0]!.metadata).not.toHaveProperty('thought');
  });

  it.each([
    ['channelId is missing', { message: 'hi' }],
    ['message is missing', { channelId: crypto.randomUUID() }],
    ['message is empty', { channelId: crypto.randomUUID(), message: '' }],
    ['channelId is not a UUID', { channelId: 'general', message: 'hi' }],
    ['metadata is not an object', { channelId: crypto.randomUUID(), message: 'hi', metadata: 'x' }],
    [
      'metadata.actions holds a non-string',
      { channelId: crypto.randomUUID(), message: 'hi', metadata: { actions: [1] } },
    ],
    ['the body is an array', [{ channelId: crypto.randomUUID(), message: 'hi' }]],
  ])('answers 400 with success false when %s', async (_label, body) => {
    const response = await send(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ success: false, error: expect.any(String) });
  });

  it('answers 400 naming the problem when the messaging interface refuses the message (too long, NUL)', async () => {
    const channelId = crypto.randomUUID();
    for (const message of ['x'.repeat(100_001), 'nul \u0000 inside']) {
      const response = await send({ channelId, message });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        success: false,
        error: expect.stringMatching(/content/) as string,
      });
    }
    expect(await server.listMessages(channelId)).toEqual([]);
  });

  it('answers 400 for metadata nested 5,000 deep (too deep to store or to serialise), posting nothing', async () => {
    const channelId = crypto.randomUUID();
    const deep = '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000);
    const response = await fetch(
      `${server.url}/send-agent-message?agentId=${server.agents[0]!.agentId}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TOKEN },
        body: `{"channelId":"${channelId}","message":"hi","metadata":${deep}}`,
      },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      error: expect.stringMatching(/^metadata\.a\..* nested at most 32 levels/) as string,
    });
    expect(await server.listMessages(channelId)).toEqual([]);
  });

  it('answers 500 without detail when SERVER_URL cannot be reached', async () => {
    const response = await send({ channelId: crypto.randomUUID(), message: 'hello?' }, 1);
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({ success: false, error: 'Failed to send the message' });
    expect(JSON.stringify(body)).not.toContain('127.0.0.1');
  });

  it('is not public: without the server’s API key it answers 401', async () => {
    const response = await fetch(`${server.url}/send-agent-message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ channelId: crypto.randomUUID(), message: 'hi' }),
    });
    expect(response.status).toBe(401);
  });
});

describe('the plugin’s own suites', () => {
  it('pass against a live server that requires an API key', async () => {
    const report = await runPluginTests(sendAgentMessagePlugin, { authToken: TOKEN });
    expect(report.results.filter((result) => !result.ok)).toEqual([]);
    expect(report.passed).toBe(2);
  });
});
