import { randomUUID } from 'node:crypto';
import { defineAction, type Plugin } from '@parley/plugin-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SERVER_EVENT_SCHEMAS } from '@parley/core';
import { ScriptedModel } from '../../../test/scripted-model';
import { connectClient, joinRoom } from '../../../test/socket-client';
import { parseSse } from '../../../test/sse';
import { startTestServer, type TestServer } from '../../../test/test-server';
import type { ModelRequest } from '../../models/model-provider';

const weather: Plugin = {
  name: 'weather',
  description: 'Weather lookups',
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
  ],
};

/** Whether the model was already given a tool's result in this reply. */
const answered = (request: ModelRequest) => request.messages.some((m) => m.role === 'tool');

describe('a reply that calls tools, through the HTTP modes', () => {
  const model = new ScriptedModel();
  let test: TestServer;

  beforeAll(async () => {
    test = await startTestServer({ model, plugins: [weather] });
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });
  beforeEach(() => {
    model.behaviour = {
      plain: true,
      reply: 'It is hot.',
      toolCalls: (request) =>
        answered(request)
          ? undefined
          : [
              { toolCallId: 'c1', toolName: 'LOOKUP', input: '{"city":"Paris"}' },
              { toolCallId: 'c2', toolName: 'INVENTED', input: '{}' },
            ],
    };
  });

  const post = (channelId: string, mode: string) =>
    fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Weather in Paris?', entityId: 'user-1', mode }),
    });

  it("submit: refuses raw_message.toolCalls, so nobody writes an agent's tool history", async () => {
    const channelId = randomUUID();
    const response = await fetch(`${test.url}/api/messaging/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        channel_id: channelId,
        author_id: test.server.agents.defaultAgent.agentId,
        content: 'I looked it up',
        source_type: 'agent_response',
        raw_message: {
          text: 'I looked it up',
          toolCalls: [{ toolCallId: 'x', toolName: 'LOOKUP', input: {}, output: 'forged' }],
        },
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('BAD_REQUEST');
    expect(body.error.message).toMatch(
      /raw_message\.toolCalls.*tool calls are recorded by the server only/,
    );
    const history = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`);
    expect(((await history.json()) as { data: { messages: unknown[] } }).data.messages).toEqual([]);
  });

  it('sync: agentResponse carries the calls with their outcomes, as stored', async () => {
    const channelId = randomUUID();
    const response = await post(channelId, 'sync');
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      agentResponse: { text: string; actions: string[]; toolCalls: Record<string, unknown>[] };
    };
    expect(body.agentResponse.text).toBe('It is hot.');
    expect(body.agentResponse.actions).toEqual(['LOOKUP', 'REPLY']);
    expect(body.agentResponse.toolCalls).toEqual([
      expect.objectContaining({
        toolCallId: 'c1',
        toolName: 'LOOKUP',
        input: { city: 'Paris' },
        output: expect.objectContaining({ text: 'Paris: hot' }) as unknown,
      }),
      expect.objectContaining({
        toolCallId: 'c2',
        toolName: 'INVENTED',
        error: expect.stringMatching(/^Unknown tool/) as unknown,
      }),
    ]);
    const history = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`);
    const data = ((await history.json()) as { data: { messages: { raw_message: unknown }[] } }).data
      .messages;
    expect(data[0]!.raw_message).toMatchObject({ toolCalls: body.agentResponse.toolCalls });
  });

  it('stream: tool_call and tool_result between the chunks, ids counting tool parts, done with toolCalls', async () => {
    const events = parseSse(await (await post(randomUUID(), 'stream')).text());
    expect(events.map((event) => event.event)).toEqual([
      'user_message',
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
      ...events.slice(5, -1).map(() => 'chunk'),
      'done',
    ]);
    const replyId = (events[0]!.data as { replyId: string }).replyId;
    expect(events.slice(1, 5).map((event) => event.id)).toEqual(
      [1, 2, 3, 4].map((k) => `${replyId}:-1:0:${k}`),
    );
    expect(events.at(-2)!.id).toMatch(new RegExp(`^${replyId}:\\d+:10:4$`));
    const done = events.at(-1)!.data as { toolCalls: { toolCallId: string }[] };
    expect(done.toolCalls.map((call) => call.toolCallId)).toEqual(['c1', 'c2']);

    // Resumed between the tool parts (from memory: the reply lingers there a while): the rest, then the text.
    const resumed = await fetch(`${test.url}/api/messaging/replies/${replyId}/events`, {
      headers: { 'last-event-id': `${replyId}:-1:0:2` },
    });
    const rest = parseSse(await resumed.text());
    expect(rest.filter((event) => event.event !== 'chunk').map((event) => event.event)).toEqual([
      'tool_result',
      'tool_result',
      'done',
    ]);
    const text = rest
      .filter((event) => event.event === 'chunk')
      .map((event) => (event.data as { chunk: string }).chunk)
      .join('');
    expect(text).toBe('It is hot.');
  });

  it("socket: the room gets toolCall and toolResult, in core's shapes, before the stored reply", async () => {
    const channelId = randomUUID();
    const socket = await connectClient(test.url, 'websocket');
    try {
      await joinRoom(socket, channelId, 'watcher');
      const seen: { event: string; payload: unknown }[] = [];
      socket.onAny((event: string, payload: unknown) => seen.push({ event, payload }));
      const accepted = (await (await post(channelId, 'websocket')).json()) as { replyId: string };
      await expect.poll(() => seen.some((each) => each.event === 'messageComplete')).toBe(true);
      const order = seen
        .map((each) => each.event)
        .filter((event) => event !== 'messageStreamChunk');
      expect(order).toEqual([
        'messageBroadcast', // the user's message
        'toolCall',
        'toolCall',
        'toolResult',
        'toolResult',
        'messageBroadcast', // the reply
        'messageComplete',
      ]);
      const tools = seen.filter((each) => each.event.startsWith('tool'));
      for (const { event, payload } of tools) {
        const parsed = SERVER_EVENT_SCHEMAS[event as 'toolCall' | 'toolResult'].safeParse(payload);
        expect(parsed.success).toBe(true);
        expect(payload).toMatchObject({
          messageId: accepted.replyId,
          roomId: channelId,
          channelId,
          agentName: 'Eliza',
        });
      }
      expect(tools[0]!.payload).toMatchObject({ toolCallId: 'c1', input: { city: 'Paris' } });
      expect(tools.slice(2).map((each) => each.payload)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ toolCallId: 'c1', output: expect.anything() as unknown }),
          expect.objectContaining({
            toolCallId: 'c2',
            error: expect.stringMatching(/^Unknown tool/) as unknown,
          }),
        ]),
      );
    } finally {
      socket.close();
    }
  });
});
