import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ParleyError } from '@parley/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentAnswer,
  MCP_TEST_CHARACTERS,
  MCP_TEST_TOKEN,
  connectMcp,
  lastText,
  postMcp,
} from '../../../test/mcp-client';
import { ScriptedModel, deferred } from '../../../test/scripted-model';
import { startTestServer, type TestServer } from '../../../test/test-server';
import { ERROR_RESULT_META } from './call-agent';

/** The text of a result's first content block. */
const textOf = (result: CallToolResult) =>
  (result.content[0] as { type: 'text'; text: string } | undefined)?.text ?? '';
/** The code an error result carries for programs. */
const codeOf = (result: CallToolResult) =>
  (result._meta?.[ERROR_RESULT_META] as { code?: string } | undefined)?.code;

const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'Bob', arguments: { message: 'hi' } },
});

describe('MCP calls that cannot be answered', () => {
  const model = new ScriptedModel();
  let test: TestServer;
  const clients: Client[] = [];
  const connect = async () => {
    const client = await connectMcp(test.url);
    clients.push(client);
    return client;
  };
  const call = (client: Client, message: string, channelId?: string) =>
    client.callTool({ name: 'Bob', arguments: { message, ...(channelId ? { channelId } : {}) } });

  beforeAll(async () => {
    test = await startTestServer({
      model,
      characters: MCP_TEST_CHARACTERS,
      authToken: MCP_TEST_TOKEN,
      syncTimeoutMs: 1500,
      replyLimits: { maxQueuedPerChannel: 1 },
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    model.behaviour = {};
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  it('answers bad arguments and unknown tools with a tool error naming the problem', async () => {
    const client = await connect();
    const cases: [unknown, RegExp][] = [
      [{ message: 5 }, /message/],
      [{}, /message/],
      [{ message: '' }, /message/],
      [{ message: 'hi', channelId: 'not-a-uuid' }, /channelId/],
      [{ message: 'nul \u0000 inside' }, /message/],
      [{ message: 'x'.repeat(100_001) }, /message/],
    ];
    for (const [args, problem] of cases) {
      const result = await client.callTool({ name: 'Bob', arguments: args as never });
      expect(result.isError, JSON.stringify(args).slice(0, 80)).toBe(true);
      expect(textOf(result as CallToolResult)).toMatch(/Input validation error/);
      expect(textOf(result as CallToolResult)).toMatch(problem);
    }
    const unknown = await client.callTool({ name: 'Nobody', arguments: { message: 'hi' } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown as CallToolResult)).toMatch(/Tool Nobody not found/);
    expect(model.requests).toHaveLength(0);
  });

  it('answers malformed requests with a 4xx JSON-RPC error, never a 500', async () => {
    const statuses = async (response: Promise<Response>) => {
      const answer = await response;
      await answer.body?.cancel();
      return answer.status;
    };
    expect(await statuses(postMcp(test.url, '{'))).toBe(400);
    const invalid = await postMcp(test.url, '{');
    expect(await invalid.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    expect(await statuses(postMcp(test.url, '{"hello":1}'))).toBe(400);
    expect(await statuses(postMcp(test.url, '[]'))).toBe(400);
    expect(await statuses(postMcp(test.url, CALL, { accept: 'application/json' }))).toBe(406);
    expect(await statuses(postMcp(test.url, CALL, { 'content-type': 'text/plain' }))).toBe(415);
    expect(await statuses(postMcp(test.url, CALL, { 'mcp-protocol-version': '1999-01-01' }))).toBe(
      400,
    );
    expect(await statuses(postMcp(test.url, `"${'x'.repeat(2 * 1024 * 1024)}"`))).toBe(413);
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${test.url}/mcp`, {
        method,
        headers: { 'x-api-key': MCP_TEST_TOKEN, accept: 'text/event-stream' },
      });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
    // A request without a session still works: each one stands alone.
    const plain = await postMcp(test.url, CALL);
    expect(plain.status).toBe(200);
    expect(await plain.text()).toContain('"result"');
  });

  it('tells a full channel queue and a failing reply as error results with their codes', async () => {
    const client = await connect();
    const gate = deferred();
    model.behaviour = { gate: gate.promise };
    const channelId = randomUUID();
    const first = call(client, 'first', channelId);
    await expect.poll(() => model.requests.some((r) => lastText(r) === 'first')).toBe(true);
    // The channel holds one waiting reply: the next two are refused (one waits, one is turned away).
    const [second, third] = await Promise.all([
      call(client, 'second', channelId),
      call(client, 'third', channelId),
    ]);
    gate.resolve();
    const refused = [second, third].filter((result) => result.isError);
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused) {
      expect(codeOf(result as CallToolResult)).toBe('RATE_LIMITED');
      expect(textOf(result as CallToolResult)).toMatch(/^RATE_LIMITED: .*retry after \d+ s/);
    }
    expect((await first).isError).toBeFalsy();

    model.behaviour = { fail: new ParleyError('MODEL_ERROR', 'The model is down') };
    const failed = (await call(client, 'fail')) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect(codeOf(failed)).toBe('MODEL_ERROR');
    expect(textOf(failed)).toMatch(/^MODEL_ERROR: /);
  });

  it('answers TIMEOUT when the reply does not end in time, and the reply goes on', async () => {
    const client = await connect();
    const gate = deferred();
    model.behaviour = { gate: gate.promise, reply: 'late' };
    const result = (await call(client, 'slow')) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(codeOf(result)).toBe('TIMEOUT');
    const { replyId, channelId } = result._meta![ERROR_RESULT_META] as AgentAnswer;
    gate.resolve();
    // Stored once it ends, as a REST `sync` reply would be.
    await expect
      .poll(async () => {
        const response = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
          headers: { 'x-api-key': MCP_TEST_TOKEN },
        });
        const { data } = (await response.json()) as { data: { messages: { id: string }[] } };
        return data.messages.map((message) => message.id);
      })
      .toContain(replyId);
  });

  it('cancels the reply when the client cancels the call (notifications/cancelled)', async () => {
    const client = await connect();
    const gate = deferred();
    model.behaviour = { gate: gate.promise };
    const aborted = model.nextAbort();
    const controller = new AbortController();
    const running = call(client, 'cancel me');
    const cancelled = client.callTool(
      { name: 'Bob', arguments: { message: 'cancel me too' } },
      undefined,
      { signal: controller.signal },
    );
    await expect
      .poll(() => model.requests.filter((r) => lastText(r).startsWith('cancel me')).length)
      .toBe(2);
    controller.abort('changed my mind');
    await expect(cancelled).rejects.toThrow();
    // The model request of the cancelled call is aborted; the other call is not touched.
    expect(lastText(await aborted)).toBe('cancel me too');
    gate.resolve();
    expect((await running).isError).toBeFalsy();
    expect(model.aborted.map(lastText)).toEqual(['cancel me too']);
  });

  it('cancels the reply when the client hangs up', async () => {
    const client = await connectMcp(test.url);
    const gate = deferred();
    model.behaviour = { gate: gate.promise };
    const aborted = model.nextAbort();
    const pending = call(client, 'hang up').catch(() => 'closed');
    await expect.poll(() => model.requests.some((r) => lastText(r) === 'hang up')).toBe(true);
    await client.close();
    expect(lastText(await aborted)).toBe('hang up');
    expect(await pending).toBe('closed');
    gate.resolve();
  });
});
