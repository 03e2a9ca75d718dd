import { defineAction, type Plugin } from '@parley/plugin-sdk';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createOpenAICompatibleModel } from '../models';
import {
  DONE_EVENT,
  toChunkEvent,
  toToolCallEvents,
} from '../models/testing/chat-completion-bodies';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../models/testing/fake-openai-server';

const TOKEN = 'ui-chat-secret-token';

const tools: Plugin = {
  name: 'ui-chat-tools',
  description: 'Weather and deploys',
  actions: [
    defineAction({
      name: 'LOOKUP',
      description: 'Looks up the weather of a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
      handler: (_runtime, _message, _state, options) => ({
        success: true,
        text: `${String(options?.parameters?.city)}: hot`,
      }),
    }),
    defineAction({
      name: 'DEPLOY',
      description: 'Deploys the app',
      parameters: { type: 'object', properties: { target: { type: 'string' } } },
      needsApproval: true,
      handler: (_runtime, _message, _state, options) => ({
        success: true,
        text: `Deployed to ${String(options?.parameters?.target)}`,
      }),
    }),
  ],
};

interface ChatMessage {
  role: string;
  content: unknown;
}
const textOf = (message: ChatMessage | undefined) =>
  typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content);

function textEvents(text: string, size = 6) {
  const events: string[] = [];
  for (let at = 0; at < text.length; at += size) {
    const delta =
      at === 0
        ? { role: 'assistant', content: text.slice(at, at + size) }
        : { content: text.slice(at, at + size) };
    events.push(toChunkEvent({ choices: [{ index: 0, delta, finish_reason: null }] }));
  }
  events.push(toChunkEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  events.push(DONE_EVENT);
  return events;
}

/** A long answer, for leaving mid-stream: 2000 pieces. */
const LONG = 'word '.repeat(2000);

const userMessage = (text: string): UIMessage => ({
  id: randomUUID(),
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** The text of a UI message's text parts. */
const textParts = (message: UIMessage) =>
  message.parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('');

describe("the AI SDK's UI message stream, driven by DefaultChatTransport and readUIMessageStream", () => {
  let upstream: FakeOpenAIServer;
  let test: TestServer;
  let agentId: string;
  let transport: DefaultChatTransport<UIMessage>;
  let api: string;
  let slowUpstream: FakeOpenAIServer;
  let slow: TestServer;
  let slowTransport: DefaultChatTransport<UIMessage>;
  let cutUpstream: FakeOpenAIServer;
  let cut: TestServer;

  beforeAll(async () => {
    upstream = await startFakeOpenAIServer({
      chunkDelayMs: 1,
      events: (body) => {
        const { messages, tools: offered } = body as { messages: ChatMessage[]; tools?: unknown[] };
        const last = messages.at(-1);
        if (last?.role === 'tool') return textEvents(`The tool said ${textOf(last)}`);
        const text = textOf(last);
        if (offered && /deploy/i.test(text)) {
          return toToolCallEvents([
            { id: 'call_deploy', name: 'DEPLOY', arguments: '{"target":"prod"}' },
          ]);
        }
        if (offered && /weather/i.test(text)) {
          return toToolCallEvents([
            { id: 'call_1', name: 'LOOKUP', arguments: '{"city":"Paris"}' },
          ]);
        }
        const asked = /(?:^|\n)[^\n]*?:\s*([^\n]*)$/.exec(text)?.[1] ?? text;
        return textEvents(`You said: ${asked.trim()}`);
      },
    });
    const model = createOpenAICompatibleModel({
      baseUrl: upstream.url,
      model: 'fake',
      timeoutMs: 10_000,
    });
    slowUpstream = await startFakeOpenAIServer({ reply: LONG, chunkSize: 5, chunkDelayMs: 2 });
    const slowModel = createOpenAICompatibleModel({
      baseUrl: slowUpstream.url,
      model: 'fake',
      timeoutMs: 60_000,
    });
    cutUpstream = await startFakeOpenAIServer({ mode: 'cut', reply: LONG, chunkSize: 50 });
    const cutModel = createOpenAICompatibleModel({
      baseUrl: cutUpstream.url,
      model: 'fake',
      timeoutMs: 10_000,
    });
    [test, slow, cut] = await Promise.all([
      startTestServer({ model, plugins: [tools], authToken: TOKEN }),
      startTestServer({ model: slowModel, authToken: TOKEN }),
      startTestServer({ model: cutModel, authToken: TOKEN }),
    ]);
    slowTransport = new DefaultChatTransport({
      api: `${slow.url}/api/messaging/ui-chat/${slow.server.agents.defaultAgent.agentId}`,
      headers: { 'x-api-key': TOKEN },
    });
    agentId = test.server.agents.defaultAgent.agentId;
    api = `${test.url}/api/messaging/ui-chat/${agentId}`;
    transport = new DefaultChatTransport({ api, headers: { 'x-api-key': TOKEN } });
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
    await slow?.[Symbol.asyncDispose]();
    await cut?.[Symbol.asyncDispose]();
    await cutUpstream?.close();
    await upstream?.close();
    await slowUpstream?.close();
  });

  /** Sends the chat's messages as useChat does and reads the answer into the UI message it builds. */
  async function send(chatId: string, messages: UIMessage[], continuing?: UIMessage) {
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId,
      messageId: undefined,
      messages,
      abortSignal: undefined,
    });
    let message: UIMessage | undefined;
    for await (const built of readUIMessageStream({
      stream,
      message: continuing,
      onError: (error) => {
        throw error;
      },
    })) {
      message = built;
    }
    if (!message) throw new Error('no message was read');
    return message;
  }

  async function history(channelId: string) {
    const response = await fetch(
      `${test.url}/api/messaging/channels/${channelId}/messages?limit=100`,
      { headers: { 'x-api-key': TOKEN } },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: { messages: { id: string; content: string; author_id: string }[] };
    };
    return body.data.messages.slice().reverse();
  }

  const replyData = (message: UIMessage) => {
    const part = message.parts.find((p) => p.type === 'data-parley-reply') as
      { data: { replyId: string; channelId: string; agentId: string } } | undefined;
    if (!part) throw new Error('no data-parley-reply part');
    return part.data;
  };

  it('answers a user message with a text reply whose id is the reply, held in the chat’s channel', async () => {
    const chatId = `chat-${randomUUID()}`;
    const message = await send(chatId, [userMessage('hello there')]);
    expect(message.role).toBe('assistant');
    expect(textParts(message)).toBe('You said: hello there');
    const data = replyData(message);
    expect(message.id).toBe(data.replyId);
    expect(data.agentId).toBe(agentId);
    const end = message.parts.find((p) => p.type === 'data-parley-end') as
      { data: { messageId: string } } | undefined;
    expect(end?.data.messageId).toBe(data.replyId);
    const stored = await history(data.channelId);
    expect(stored.map((m) => m.content)).toEqual(['hello there', 'You said: hello there']);

    // The same chat id is the same channel: the next turn lands after the first.
    const second = await send(chatId, [userMessage('hello there'), message, userMessage('again')]);
    expect(replyData(second).channelId).toBe(data.channelId);
    expect((await history(data.channelId)).map((m) => m.content)).toEqual([
      'hello there',
      'You said: hello there',
      'again',
      'You said: again',
    ]);
  });

  it('streams a tool call the agent ran as a tool part with its input and output, then the text after it', async () => {
    const message = await send(`chat-${randomUUID()}`, [userMessage('the weather please')]);
    const tool = message.parts.find((p) => p.type === 'tool-LOOKUP') as
      { state: string; input: unknown; output: unknown; toolCallId: string } | undefined;
    expect(tool).toMatchObject({ state: 'output-available', input: { city: 'Paris' } });
    expect(JSON.stringify(tool?.output)).toContain('Paris: hot');
    expect(textParts(message)).toContain('The tool said');
    // The tool part comes before the text that followed it.
    const order = message.parts
      .map((p) => p.type)
      .filter((t) => t === 'text' || t === 'tool-LOOKUP');
    expect(order).toEqual(['tool-LOOKUP', 'text']);
  });

  async function askToDeploy(chatId: string) {
    const user = userMessage('deploy it');
    const paused = await send(chatId, [user]);
    const tool = paused.parts.find((p) => p.type === 'tool-DEPLOY') as
      { state: string; input: unknown; toolCallId: string; approval: { id: string } } | undefined;
    expect(tool).toMatchObject({ state: 'approval-requested', input: { target: 'prod' } });
    expect(paused.parts.some((p) => p.type === 'data-parley-pause')).toBe(true);
    return { user, paused, tool: tool! };
  }

  /** The assistant message as useChat holds it after `addToolApprovalResponse`. */
  function answered(message: UIMessage, approved: boolean, reason?: string): UIMessage {
    return {
      ...message,
      parts: message.parts.map((part) =>
        part.type === 'tool-DEPLOY' && part.state === 'approval-requested'
          ? {
              ...part,
              state: 'approval-responded' as const,
              approval: { id: part.approval.id, approved, reason },
            }
          : part,
      ),
    };
  }

  it('asks for approval with tool-approval-request; the approval sent back runs the call and the reply goes on', async () => {
    const chatId = `chat-${randomUUID()}`;
    const { user, paused } = await askToDeploy(chatId);
    const responded = answered(paused, true);
    const done = await send(chatId, [user, responded], structuredClone(responded));
    expect(done.id).toBe(paused.id);
    const tool = done.parts.find((p) => p.type === 'tool-DEPLOY') as
      { state: string; output: unknown } | undefined;
    expect(tool?.state).toBe('output-available');
    expect(JSON.stringify(tool?.output)).toContain('Deployed to prod');
    expect(textParts(done)).toContain('The tool said');
    const stored = await history(replyData(paused).channelId);
    expect(stored.at(-1)?.id).toBe(paused.id);
    expect(stored.at(-1)?.content).toContain('The tool said');

    // The same answer again is refused: the request was decided.
    const again = await fetch(api, {
      method: 'POST',
      headers: { 'x-api-key': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ id: chatId, messages: [user, responded], trigger: 'submit-message' }),
    });
    expect(again.status).toBe(409);
  });

  it('a denial sent back shows the call as denied and the reply goes on without running it', async () => {
    const chatId = `chat-${randomUUID()}`;
    const { user, paused } = await askToDeploy(chatId);
    const responded = answered(paused, false, 'not today');
    const done = await send(chatId, [user, responded], structuredClone(responded));
    const tool = done.parts.find((p) => p.type === 'tool-DEPLOY') as { state: string } | undefined;
    expect(tool?.state).toBe('output-denied');
    expect(JSON.stringify(done.parts)).not.toContain('Deployed to prod');
  });

  it('the same approval answer sent twice at once is decided once: one stream, one 409', async () => {
    const chatId = `chat-${randomUUID()}`;
    const { user, paused } = await askToDeploy(chatId);
    const body = JSON.stringify({
      id: chatId,
      messages: [user, answered(paused, true)],
      trigger: 'submit-message',
    });
    const responses = await Promise.all(
      [0, 1].map(() =>
        fetch(api, {
          method: 'POST',
          headers: { 'x-api-key': TOKEN, 'content-type': 'application/json' },
          body,
        }),
      ),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
    const streamed = await responses.find((r) => r.status === 200)!.text();
    expect(streamed.match(/"type":"tool-output-available"/g)).toHaveLength(1);
    expect(streamed).toContain('Deployed to prod');
    const stored = await history(replyData(paused).channelId);
    expect(stored.filter((m) => m.id === paused.id)).toHaveLength(1);
  });

  it('an approval answer for another chat’s reply is 404, and one naming no reply is 400', async () => {
    const { user, paused } = await askToDeploy(`chat-${randomUUID()}`);
    const post = (chatId: string, messages: unknown[]) =>
      fetch(api, {
        method: 'POST',
        headers: { 'x-api-key': TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify({ id: chatId, messages, trigger: 'submit-message' }),
      });
    const responses = await Promise.all([
      post(`chat-${randomUUID()}`, [user, answered(paused, true)]),
      post(`chat-${randomUUID()}`, [user, { ...answered(paused, true), id: 'not-a-reply' }]),
    ]);
    expect(responses.map((r) => r.status)).toEqual([404, 400]);
  });

  it('tries of one request with an Idempotency-Key, released together, post once and stream the same reply', async () => {
    const chatId = `chat-${randomUUID()}`;
    const keyed = new DefaultChatTransport<UIMessage>({
      api,
      headers: { 'x-api-key': TOKEN, 'idempotency-key': `ui-${randomUUID()}` },
    });
    const user = userMessage('only once');
    const read = async () => {
      const stream = await keyed.sendMessages({
        trigger: 'submit-message',
        chatId,
        messageId: undefined,
        messages: [user],
        abortSignal: undefined,
      });
      let message: UIMessage | undefined;
      for await (const built of readUIMessageStream({ stream })) message = built;
      return message!;
    };
    const [one, two] = await Promise.all([read(), read()]);
    expect(one.id).toBe(two.id);
    expect(textParts(one)).toBe('You said: only once');
    expect(textParts(two)).toBe('You said: only once');
    const stored = await history(replyData(one).channelId);
    expect(stored.map((m) => m.content)).toEqual(['only once', 'You said: only once']);
  });

  it('refuses bad input with a clear 4xx in the error envelope, never a 500', async () => {
    const post = (body: unknown, path = api, headers: Record<string, string> = {}) =>
      fetch(path, {
        method: 'POST',
        headers: { 'x-api-key': TOKEN, 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const chatId = `chat-${randomUUID()}`;
    const cases: [unknown, string?, Record<string, string>?][] = [
      ['{not json'],
      [{ id: chatId }],
      [{ id: chatId, messages: [] }],
      [{ id: '', messages: [userMessage('hi')] }],
      [{ id: chatId, messages: [{ id: 'x', role: 'robot', parts: [] }] }],
      [{ id: chatId, messages: [{ id: 'x', role: 'user', parts: [{ type: 'file', url: 'x' }] }] }],
      [
        {
          id: chatId,
          messages: [{ id: 'x', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }],
        },
      ],
      [
        {
          id: chatId,
          messages: [
            {
              id: randomUUID(),
              role: 'assistant',
              parts: [{ type: 'tool-DEPLOY', state: 'approval-responded', toolCallId: 'c' }],
            },
          ],
        },
      ],
      [{ id: chatId, messages: [userMessage('hi')], trigger: 'explode' }],
      [
        { id: chatId, messages: [userMessage('hi')] },
        `${test.url}/api/messaging/ui-chat/${randomUUID()}`,
      ],
      [{ id: chatId, messages: [userMessage('hi')] }, api, { 'x-api-key': 'wrong' }],
    ];
    const responses = await Promise.all(
      cases.map(([body, path, headers]) => post(body, path, headers)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 400, 404, 401]);
    for (const response of responses) {
      const body = (await response.json()) as { success: boolean; error: { message: string } };
      expect(body.success).toBe(false);
      expect(body.error.message).not.toContain(TOKEN);
    }
  });

  it('resuming a chat with no running reply is 204, which the transport reads as nothing to resume', async () => {
    const chatId = `chat-${randomUUID()}`;
    await send(chatId, [userMessage('hello')]);
    expect(await transport.reconnectToStream({ chatId })).toBeNull();
    expect(await transport.reconnectToStream({ chatId: `chat-${randomUUID()}` })).toBeNull();
  });

  it('a stream left mid-reply does not cancel it: the chat’s running reply is resumed from its start and stored whole', async () => {
    const chatId = `chat-${randomUUID()}`;
    const leaving = new AbortController();
    const first = await slowTransport.sendMessages({
      trigger: 'submit-message',
      chatId,
      messageId: undefined,
      messages: [userMessage('talk for a while')],
      abortSignal: leaving.signal,
    });
    const reader = first.getReader();
    let replyId: string | undefined;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before any text');
      if (value.type === 'start') replyId = value.messageId;
      if (value.type === 'text-delta') break;
    }
    leaving.abort();
    await reader.cancel().catch(() => undefined);

    const resumed = await slowTransport.reconnectToStream({ chatId });
    expect(resumed).not.toBeNull();
    let message: UIMessage | undefined;
    for await (const built of readUIMessageStream({ stream: resumed! })) message = built;
    expect(message?.id).toBe(replyId);
    const text = textParts(message!);
    expect(text.trim()).toBe(LONG.trim());
    const channelId = replyData(message!).channelId;
    const response = await fetch(
      `${slow.url}/api/messaging/channels/${channelId}/messages?limit=10`,
      { headers: { 'x-api-key': TOKEN } },
    );
    const stored = (await response.json()) as {
      data: { messages: { id: string; content: string }[] };
    };
    expect(stored.data.messages[0]).toMatchObject({ id: replyId, content: text });
    // Once it ended there is nothing to resume.
    expect(await slowTransport.reconnectToStream({ chatId })).toBeNull();
  });

  it('a model that drops its connection mid-reply ends the stream with an error chunk the SDK raises, naming no internals', async () => {
    const cutTransport = new DefaultChatTransport<UIMessage>({
      api: `${cut.url}/api/messaging/ui-chat/${cut.server.agents.defaultAgent.agentId}`,
      headers: { 'x-api-key': TOKEN },
    });
    const stream = await cutTransport.sendMessages({
      trigger: 'submit-message',
      chatId: `chat-${randomUUID()}`,
      messageId: undefined,
      messages: [userMessage('say a lot')],
      abortSignal: undefined,
    });
    const roles: string[] = [];
    const failure = await (async () => {
      for await (const built of readUIMessageStream({ stream, terminateOnError: true })) {
        roles.push(built.role);
      }
    })().catch((error: unknown) => error);
    expect(roles.every((role) => role === 'assistant')).toBe(true);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toContain('MODEL_ERROR');
    expect(message).not.toContain(cutUpstream.url);
    expect(message).not.toContain(TOKEN);
  });
});
