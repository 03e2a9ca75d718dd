import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentAnswer,
  MCP_TEST_CHARACTERS,
  MCP_TEST_TOKEN,
  answered,
  approvalPlugin,
  connectMcp,
  lastText,
  weatherPlugin,
} from '../../../test/mcp-client';
import { ScriptedModel } from '../../../test/scripted-model';
import { startTestServer, type TestServer } from '../../../test/test-server';
import { PROGRESS_PART_META } from './reply-progress';

describe('the agents over MCP, through the SDK client', () => {
  const model = new ScriptedModel();
  let test: TestServer;
  const clients: Client[] = [];
  const connect = async (headers?: Record<string, string>) => {
    const client = await connectMcp(test.url, headers);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    test = await startTestServer({
      model,
      plugins: [weatherPlugin, approvalPlugin],
      characters: MCP_TEST_CHARACTERS,
      authToken: MCP_TEST_TOKEN,
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    model.behaviour = {};
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  /** The stored messages of a channel, oldest first. */
  const history = async (channelId: string) => {
    const response = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      headers: { 'x-api-key': MCP_TEST_TOKEN },
    });
    const { data } = (await response.json()) as {
      data: { messages: { content: string; author_id: string; source_type: string }[] };
    };
    return data.messages.reverse();
  };

  it('lists each agent as a tool with a model-safe name, its bio, and input and output schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['Ada_Lovelace', 'Bob']);
    const [ada, bob] = tools;
    expect(ada).toMatchObject({ title: 'Ada Lovelace' });
    expect(ada!.description).toContain('Writes the first programs. Answers in one line.');
    expect(bob!.description).toContain('Bob');
    expect(ada!.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' }, channelId: { type: 'string' } },
      required: ['message'],
    });
    expect(Object.keys(ada!.outputSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(['replyId', 'channelId', 'text', 'toolCalls']),
    );
  });

  it('answers a call with the reply as text and structured content, and continues its channel', async () => {
    model.behaviour = { reply: (request) => `You said ${lastText(request)}` };
    const client = await connect();
    const first = await client.callTool({ name: 'Bob', arguments: { message: 'hello' } });
    expect(first.isError).toBeFalsy();
    expect(first.content).toEqual([{ type: 'text', text: 'You said hello' }]);
    const answer = first.structuredContent as AgentAnswer;
    expect(answer).toMatchObject({ text: 'You said hello', toolCalls: [] });
    expect(answer.replyId).toMatch(/^[0-9a-f-]{36}$/);

    const second = await client.callTool({
      name: 'Bob',
      arguments: { message: 'again', channelId: answer.channelId },
    });
    expect((second.structuredContent as AgentAnswer).channelId).toBe(answer.channelId);
    // The model saw the earlier turn: one conversation.
    expect(model.requests.at(-1)!.messages.map((message) => message.content)).toEqual(
      expect.arrayContaining(['hello', 'You said hello', 'again']),
    );
    const stored = await history(answer.channelId);
    expect(stored.map((message) => message.content)).toEqual([
      'hello',
      'You said hello',
      'again',
      'You said again',
    ]);
    expect(stored[0]!.source_type).toBe('mcp');
    // Without a channel id, a call starts a new conversation.
    const third = await client.callTool({ name: 'Bob', arguments: { message: 'new' } });
    expect((third.structuredContent as AgentAnswer).channelId).not.toBe(answer.channelId);
  });

  it("gives the agent's tool calls with their outcomes in the structured content", async () => {
    model.behaviour = {
      plain: true,
      reply: 'It is hot in Paris.',
      toolCalls: (request) =>
        answered(request)
          ? undefined
          : [{ toolCallId: 'c1', toolName: 'LOOKUP', input: '{"city":"Paris"}' }],
    };
    const client = await connect();
    const result = await client.callTool({
      name: 'Ada_Lovelace',
      arguments: { message: 'Weather in Paris?' },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'It is hot in Paris.' }]);
    const { toolCalls } = result.structuredContent as AgentAnswer;
    expect(toolCalls).toHaveLength(1);
    expect(toolCalls[0]).toMatchObject({ toolCallId: 'c1', toolName: 'LOOKUP' });
    expect(toolCalls[0]!.input).toEqual({ city: 'Paris' });
    expect(JSON.stringify(toolCalls[0]!.output)).toContain('Paris: hot');
  });

  it('sends the reply as progress notifications when the call asks for them', async () => {
    model.behaviour = {
      plain: true,
      chunkSize: 3,
      reply: 'A long answer, told piece by piece.',
      toolCalls: (request) =>
        answered(request)
          ? undefined
          : [{ toolCallId: 'c1', toolName: 'LOOKUP', input: '{"city":"Oslo"}' }],
    };
    const client = await connect();
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'Bob', arguments: { message: 'Tell me' } },
      undefined,
      { onprogress: (notification) => progress.push(notification), resetTimeoutOnProgress: true },
    );
    // The SDK hands `onprogress` the notification's params, `_meta` included (its type leaves it out).
    const partOf = (notification: Progress) =>
      (notification as { _meta?: Record<string, { type: string }> })._meta?.[PROGRESS_PART_META];
    const texts = progress.filter((notification) => partOf(notification)?.type === 'text');
    expect(texts.length).toBeGreaterThan(3);
    expect(texts.map((notification) => notification.message).join('')).toBe(
      (result.structuredContent as AgentAnswer).text,
    );
    expect(progress.map((notification) => partOf(notification)?.type)).toEqual(
      expect.arrayContaining(['tool-call', 'tool-result']),
    );
    const numbers = progress.map((notification) => notification.progress);
    expect(numbers).toEqual(numbers.map((_, index) => index + 1));

    // Without a progress token, none is sent (the client would report one it did not ask for).
    const unexpected: Error[] = [];
    client.onerror = (error) => unexpected.push(error);
    await client.callTool({ name: 'Bob', arguments: { message: 'Tell me' } });
    expect(unexpected).toEqual([]);
  });

  it('answers a reply that paused for approval with what it has and the calls that wait', async () => {
    model.behaviour = {
      plain: true,
      reply: 'Forgotten.',
      toolCalls: (request) =>
        answered(request)
          ? undefined
          : [{ toolCallId: 'f1', toolName: 'FORGET', input: '{"what":"everything"}' }],
    };
    const client = await connect();
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'Bob', arguments: { message: 'Forget it all' } },
      undefined,
      { onprogress: (notification) => progress.push(notification) },
    );
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as AgentAnswer & {
      awaitingApproval?: { toolCallId: string; toolName: string; input: unknown }[];
    };
    expect(answer.awaitingApproval).toEqual([
      expect.objectContaining({
        toolCallId: 'f1',
        toolName: 'FORGET',
        input: { what: 'everything' },
      }),
    ]);
    expect(JSON.stringify(result.content)).toContain(
      `/api/messaging/replies/${answer.replyId}/approvals`,
    );
    expect(progress.map((notification) => notification.message)).toContain(
      'FORGET waits for approval',
    );
  });

  it('refuses a client without the token (401) and serves one with it, as x-api-key or Bearer', async () => {
    await expect(connectMcp(test.url, {})).rejects.toMatchObject({ code: 401 });
    await expect(connectMcp(test.url, { 'x-api-key': 'wrong' })).rejects.toMatchObject({
      code: 401,
    });
    const bearer = await connect({ authorization: `Bearer ${MCP_TEST_TOKEN}` });
    expect((await bearer.listTools()).tools).toHaveLength(2);
    const keyed = await connect();
    expect((await keyed.listTools()).tools).toHaveLength(2);
  });

  it('posts each session as an entity of its own', async () => {
    const [one, two] = [await connect(), await connect()];
    const call = async (client: Client) =>
      (await client.callTool({ name: 'Bob', arguments: { message: 'who am I?' } }))
        .structuredContent as AgentAnswer;
    const [first, second] = [await call(one), await call(two)];
    const authors = await Promise.all(
      [first, second].map(async ({ channelId }) => (await history(channelId))[0]!.author_id),
    );
    expect(authors[0]).not.toBe(authors[1]);
    // The same session is the same entity from call to call.
    expect((await history((await call(one)).channelId))[0]!.author_id).toBe(authors[0]);
  });

  it('answers every one of 20 calls from 4 clients released together', async () => {
    model.behaviour = { reply: (request) => `Echo ${lastText(request)}` };
    const callers = await Promise.all(Array.from({ length: 4 }, () => connect()));
    const messages = Array.from({ length: 20 }, (_, n) => `message ${n} ${randomUUID()}`);
    const results = await Promise.all(
      messages.map((message, n) =>
        callers[n % callers.length]!.callTool({
          name: n % 2 === 0 ? 'Bob' : 'Ada_Lovelace',
          arguments: { message },
        }),
      ),
    );
    expect(results.filter((result) => result.isError)).toEqual([]);
    expect(results.map((result) => (result.structuredContent as AgentAnswer).text)).toEqual(
      messages.map((message) => `Echo ${message}`),
    );
    const channels = results.map((result) => (result.structuredContent as AgentAnswer).channelId);
    expect(new Set(channels).size).toBe(20);
  });
});
