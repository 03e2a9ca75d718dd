import { afterEach, describe, expect, it } from 'vitest';
import { MCP_TEST_CHARACTERS, MCP_TEST_TOKEN, postMcp } from '../../../test/mcp-client';
import { startTestServer, type TestServer } from '../../../test/test-server';
import { DEFAULTS } from '../../defaults';
import { createOpenAICompatibleModel } from '../../models';
import {
  startFakeOpenAIServer,
  type FakeChatMessage,
  type FakeOpenAIServer,
} from '../../models/testing/fake-openai-server';

/** The budget the red team used (issue 39): a burst of 5; the refill is slow enough that no token comes back meanwhile. */
const BURST = 5;

/** A JSON-RPC message of a parsed answer. */
interface RpcAnswer {
  id?: unknown;
  result?: { isError?: boolean };
  error?: { code: number; message: string; data?: { code?: string; retryAfterSeconds?: number } };
}

/** The JSON-RPC messages of an answer, whether JSON or an event stream. */
async function messagesOf(response: Response): Promise<RpcAnswer[]> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as RpcAnswer);
  }
  const value = JSON.parse(text) as RpcAnswer | RpcAnswer[];
  return Array.isArray(value) ? value : [value];
}

/** A `tools/call` of Bob saying `message`. */
const callOf = (id: number, message: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'Bob', arguments: { message } },
});

/** Everyone who calls `/mcp` from here is one client: same address, same token. */
describe('/mcp counts every call against the caller’s budget, not every HTTP request', () => {
  const upstreams: FakeOpenAIServer[] = [];
  const servers: TestServer[] = [];
  /** The messages the model was asked to answer, per server (one per reply started). */
  let asked: Set<string>;

  async function start() {
    asked = new Set();
    const upstream = await startFakeOpenAIServer({
      reply: '<response><actions>REPLY</actions><text>ok</text></response>',
      onRequest: ({ body }) => {
        const messages = (body as { messages: FakeChatMessage[] }).messages;
        const said = messages
          .filter((message) => message.role === 'user')
          .map((message) => String(message.content))
          .join('\n');
        for (const match of said.matchAll(/call-\d+/g)) asked.add(match[0]);
      },
    });
    upstreams.push(upstream);
    const test = await startTestServer({
      model: createOpenAICompatibleModel({ baseUrl: upstream.url, model: 'fake' }),
      characters: MCP_TEST_CHARACTERS,
      authToken: MCP_TEST_TOKEN,
      rateLimit: { burst: BURST, perSecond: 0.0001, limitLoopback: true },
    });
    servers.push(test);
    return test;
  }
  afterEach(async () => {
    for (const server of servers.splice(0)) await server[Symbol.asyncDispose]();
    for (const upstream of upstreams.splice(0)) await upstream.close();
  });

  it('refuses a batch of 100 tools/call with one error, starting no reply', async () => {
    const test = await start();
    const batch = Array.from({ length: 100 }, (_, i) => callOf(i + 1, `call-${i + 1}`));
    const response = await postMcp(test.url, JSON.stringify(batch));
    expect(response.status).toBe(400);
    const answers = await messagesOf(response);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.error?.code).toBe(-32600);
    expect(answers[0]!.error?.message).toMatch(/batch/i);
    // The server is still there, and nothing reached the model.
    const single = await postMcp(test.url, JSON.stringify(callOf(1, 'call-single')));
    expect(single.status).toBe(200);
    expect((await messagesOf(single))[0]!.result?.isError).toBeFalsy();
    expect([...asked]).toEqual([]);
  });

  it('takes a token per tools/call in a batch: beyond the budget, JSON-RPC errors with a retry hint', async () => {
    const test = await start();
    const size = DEFAULTS.mcpServer.maxBatchMessages;
    expect(size).toBeGreaterThan(BURST);
    const batch = Array.from({ length: size }, (_, i) => callOf(i + 1, `call-${i + 1}`));
    const response = await postMcp(test.url, JSON.stringify(batch));
    expect(response.status).toBe(200);
    const answers = await messagesOf(response);
    // Every call is answered once, in a result or an error.
    expect(answers.map((answer) => answer.id).sort()).toEqual(batch.map((call) => call.id).sort());
    const answered = answers.filter((answer) => answer.result && !answer.result.isError);
    const refused = answers.filter((answer) => answer.error);
    expect(answered).toHaveLength(BURST);
    expect(refused).toHaveLength(size - BURST);
    for (const answer of refused) {
      expect(answer.error!.message).toMatch(/^RATE_LIMITED: .*retry after \d+ s/);
      expect(answer.error!.data).toMatchObject({ code: 'RATE_LIMITED' });
      expect(answer.error!.data!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    // Only the admitted calls reached the model.
    expect(asked.size).toBe(BURST);
    // The budget is spent: the next single call is refused at the door.
    const next = await postMcp(test.url, JSON.stringify(callOf(1, 'call-after')));
    expect(next.status).toBe(429);
    await next.body?.cancel();
    expect(asked.has('call-after')).toBe(false);
  });

  it('refuses batches when the client speaks MCP 2025-06-18 or later (batching was removed)', async () => {
    const test = await start();
    for (const version of ['2025-06-18', '2025-11-25']) {
      const batch = [callOf(1, 'call-1'), callOf(2, 'call-2')];
      const response = await postMcp(test.url, JSON.stringify(batch), {
        'mcp-protocol-version': version,
      });
      expect(response.status, version).toBe(400);
      expect((await messagesOf(response))[0]!.error?.code).toBe(-32600);
    }
    expect([...asked]).toEqual([]);
  });

  it('refuses a batch naming one request id twice', async () => {
    const test = await start();
    const response = await postMcp(
      test.url,
      JSON.stringify([callOf(7, 'call-1'), callOf(7, 'call-2')]),
    );
    expect(response.status).toBe(400);
    expect((await messagesOf(response))[0]!.error?.code).toBe(-32600);
    expect([...asked]).toEqual([]);
  });

  it('100 separate POSTs released together: at most the burst start a reply, the rest get 429', async () => {
    const test = await start();
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        postMcp(test.url, JSON.stringify(callOf(1, `call-${i + 1}`))),
      ),
    );
    const statuses = responses.map((response) => response.status);
    // The admitted calls are read to their end (hanging up would cancel their replies).
    await Promise.all(
      responses.map(async (response) => {
        if (response.status === 200) await response.text();
        else await response.body?.cancel();
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(BURST);
    expect(statuses.filter((status) => status === 429)).toHaveLength(100 - BURST);
    for (const response of responses.filter((r) => r.status === 429)) {
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    await expect.poll(() => asked.size).toBe(BURST);
  });
});
