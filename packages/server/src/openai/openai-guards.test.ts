import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createOpenAICompatibleModel } from '../models';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../models/testing/fake-openai-server';

const TOKEN = 'openai-guards-token';

/** `/v1` under the shared guards, against a model server that fails (its body names an internal detail). */
describe('the OpenAI face behind the guards, with a failing model', () => {
  let upstream: FakeOpenAIServer;
  let test: TestServer;
  let agentId: string;

  beforeAll(async () => {
    upstream = await startFakeOpenAIServer({ mode: 'fail' });
    const model = createOpenAICompatibleModel({
      baseUrl: upstream.url,
      model: 'fake',
      timeoutMs: 5000,
    });
    test = await startTestServer({
      model,
      authToken: TOKEN,
      // Loopback limited too, with a burst small enough to exhaust: the budget is /api/messaging's.
      rateLimit: { burst: 6, perSecond: 0.001, limitLoopback: true },
    });
    agentId = test.server.agents.defaultAgent.agentId;
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
    await upstream?.close();
  });

  const chat = (stream: boolean) =>
    fetch(`${test.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: agentId, stream, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('a failing model is a 502 in OpenAI shape, streamed or not, never with the upstream detail', async () => {
    const client = new OpenAI({ baseURL: `${test.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    const plain = await client.chat.completions
      .create({ model: agentId, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(OpenAI.APIError);
    expect(plain).toMatchObject({ status: 502, type: 'server_error', code: 'model_error' });
    expect(String((plain as Error).message)).not.toContain('internal detail');

    // Streamed, the failure comes after the first chunk: OpenAI's streamed error, which the client raises.
    const stream = await client.chat.completions.create({
      model: agentId,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const failure = await (async () => {
      for await (const chunk of stream) void chunk;
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(String((failure as Error).message)).not.toContain('internal detail');

    const response = await client.responses
      .create({ model: agentId, input: 'hi', stream: true })
      .then(async (events) => {
        const seen = [];
        for await (const event of events) seen.push(event);
        return seen;
      });
    const last = response.at(-1) as {
      type: string;
      response: { status: string; error: { code: string } };
    };
    expect(last).toMatchObject({
      type: 'response.failed',
      response: { status: 'failed', error: { code: 'model_error' } },
    });
    expect(JSON.stringify(response)).not.toContain('internal detail');
  });

  it('requests released together spend one budget with /api/messaging: the rest are 429 in OpenAI shape', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(i % 2 === 0)));
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const answer of limited) {
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await answer.json()).toEqual({
        error: {
          message: expect.any(String),
          type: 'rate_limit_error',
          param: null,
          code: 'rate_limit_exceeded',
        },
      });
    }
    for (const answer of answers.filter((a) => a.status !== 429)) {
      expect([200, 502]).toContain(answer.status);
      await answer.body?.cancel();
    }
    // The channel API is the same client's budget: spent.
    const channel = await fetch(
      `${test.url}/api/messaging/channels/${crypto.randomUUID()}/messages`,
      {
        method: 'POST',
        headers: { 'x-api-key': TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hi', entityId: 'u', mode: 'websocket' }),
      },
    );
    expect(channel.status).toBe(429);
  });
});

describe('the OpenAI face against text the database cannot store', () => {
  let test: TestServer;
  let agentId: string;
  beforeAll(async () => {
    test = await startTestServer({ authToken: TOKEN });
    agentId = test.server.agents.defaultAgent.agentId;
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  it('text the database cannot store is a 400 naming the field, wherever it hides', async () => {
    const post = (path: string, body: object) =>
      fetch(`${test.url}/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const message = [{ role: 'user', content: 'hi' }];
    const hostile = [
      post('/chat/completions', { model: agentId, user: 'a\u0000b', messages: message }),
      post('/chat/completions', { model: agentId, metadata: { k: 'a\u0000b' }, messages: message }),
      post('/chat/completions', {
        model: agentId,
        metadata: { 'a\u0000b': 'v' },
        messages: message,
      }),
      post('/chat/completions', {
        model: agentId,
        messages: [{ role: 'user', content: 'a\u0000b' }],
      }),
      post('/chat/completions', {
        model: agentId,
        messages: [{ role: 'user', content: '\ud800' }],
      }),
      post('/chat/completions', {
        model: agentId,
        messages: [{ role: 'assistant', content: 'a\u0000b' }, ...message],
      }),
      post('/responses', { model: agentId, input: 'hi', instructions: 'a\u0000b' }),
      post('/responses', { model: agentId, input: 'hi', user: '\udfff' }),
      post('/responses', { model: 'a\u0000b', input: 'hi' }),
    ];
    const answers = await Promise.all(hostile);
    expect(answers.map((answer) => answer.status)).toEqual(hostile.map(() => 400));
    for (const answer of answers) {
      expect(await answer.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    }
    // The server answers on.
    expect((await fetch(`${test.url}/api/server/health`)).status).toBe(200);
  });
});
