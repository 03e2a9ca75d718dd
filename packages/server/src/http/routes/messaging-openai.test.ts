import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse } from '../../../test/sse';
import { startTestServer, type TestServer } from '../../../test/test-server';
import { createOpenAICompatibleModel } from '../../models';
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
} from '../../models/testing/fake-openai-server';

/** The server answering through an OpenAI-compatible endpoint over real HTTP. */
describe('messaging through an OpenAI-compatible model server', () => {
  const upstreams: FakeOpenAIServer[] = [];
  const servers: TestServer[] = [];

  async function serverWith(options: FakeOpenAIServerOptions, timeoutMs = 5000) {
    const upstream = await startFakeOpenAIServer(options);
    upstreams.push(upstream);
    const model = createOpenAICompatibleModel({ baseUrl: upstream.url, model: 'fake', timeoutMs });
    const test = await startTestServer({ model });
    servers.push(test);
    return test;
  }
  const send = (test: TestServer, mode: string) =>
    fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'How are you?', entityId: 'u', mode }),
    });

  let healthy: TestServer;
  let failing: TestServer;
  let slow: TestServer;
  beforeAll(async () => {
    [healthy, failing, slow] = await Promise.all([
      serverWith({
        reply:
          '<response><thought>be kind</thought><actions>REPLY</actions><text>Fine, thank you.</text></response>',
        chunkSize: 7,
        chunkDelayMs: 1,
      }),
      serverWith({ mode: 'fail' }),
      serverWith({ mode: 'slow', delayMs: 10_000 }, 300),
    ]);
  });
  afterAll(async () => {
    for (const server of servers) await server[Symbol.asyncDispose]();
    for (const upstream of upstreams) await upstream.close();
  });

  it('sync: returns the extracted reply text', async () => {
    const response = await send(healthy, 'sync');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      agentResponse: { text: 'Fine, thank you.', actions: ['REPLY'] },
    });
  });

  it('stream: streams only the <text> content, chunk by chunk', async () => {
    const events = parseSse(await (await send(healthy, 'stream')).text());
    const chunks = events
      .filter((e) => e.event === 'chunk')
      .map((e) => (e.data as { chunk: string }).chunk);
    expect(chunks.join('')).toBe('Fine, thank you.');
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('a failing model server is a 502 MODEL_ERROR without upstream detail', async () => {
    const response = await send(failing, 'sync');
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: 'MODEL_ERROR', message: 'The model service answered with HTTP 500' },
    });
  });

  it('a silent model server is a TIMEOUT, as a 504 in sync mode and an error event in stream mode', async () => {
    const sync = await send(slow, 'sync');
    expect(sync.status).toBe(504);
    expect(await sync.json()).toMatchObject({ error: { code: 'TIMEOUT' } });
    const events = parseSse(await (await send(slow, 'stream')).text());
    expect(events.map((e) => e.event)).toEqual(['user_message', 'error']);
    expect(events[1]!.data).toMatchObject({ code: 'TIMEOUT' });
  });
});
