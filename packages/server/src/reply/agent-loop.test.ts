import { defineEvaluator, defineProvider } from '@parley/plugin-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  answerFromResults,
  startLoopServer,
  toolResultsOf,
  weatherAction,
  type LoopFixture,
} from '../../test/agent-loop-fixture';
import type { ModelRequest, ModelToolCall } from '../models/model-provider';
import { connectClient, joinRoom, nextEvent } from '../../test/socket-client';
import { parseSse } from '../../test/sse';

/** Makes `calls` when the conversation ends with the user's message; answers once results came back. */
const callFirst = (calls: ModelToolCall[]) => (request: ModelRequest) =>
  request.messages.at(-1)?.role === 'user' ? calls : undefined;

const paris: ModelToolCall = {
  toolCallId: 'call_1',
  toolName: 'GET_WEATHER',
  input: '{"city":"Paris"}',
};

describe('the agent loop, from outside', () => {
  let loop: LoopFixture;
  const evaluated: string[] = [];

  beforeAll(async () => {
    loop = await startLoopServer((calls) => [weatherAction(calls)], {
      providers: [
        defineProvider({ name: 'CLOCK', get: () => ({ text: 'It is tea time.' }) }),
        defineProvider({
          name: 'BROKEN',
          get: () => {
            throw new Error('provider down');
          },
        }),
        defineProvider({ name: 'SLOW', get: () => new Promise(() => undefined) }),
      ],
      evaluators: [
        defineEvaluator({
          name: 'NOTE',
          description: 'notes each reply',
          validate: () => true,
          handler: (_runtime, _message, _state, _options, _callback, responses) => {
            evaluated.push(String(responses?.[0]?.content.text));
          },
        }),
      ],
      agentLoop: { providerTimeoutMs: 300 },
    });
  });
  afterAll(() => loop.test[Symbol.asyncDispose]());
  beforeEach(() => {
    loop.model.behaviour = { toolCalls: callFirst([paris]), reply: answerFromResults, plain: true };
    loop.model.callsTools = true;
    loop.calls.length = 0;
  });

  it('sync: the model calls the action with parsed arguments and answers from its result', async () => {
    const body = await loop.sync(loop.channel(), 'Weather in Paris?');
    expect(loop.calls).toMatchObject([{ name: 'GET_WEATHER', parameters: { city: 'Paris' } }]);
    expect(body.agentResponse.text).toBe('Done: Sunny in Paris, 21 °C');
    expect(body.agentResponse.actions).toEqual(['GET_WEATHER', 'REPLY']);
    expect(body.agentResponse.toolCalls).toEqual([
      {
        toolCallId: 'call_1',
        toolName: 'GET_WEATHER',
        input: { city: 'Paris' },
        output: { text: 'Sunny in Paris, 21 °C' },
      },
    ]);
    // The tool was offered natively, with the action's schema.
    const first = loop.model.requests.at(-2)!;
    expect(first.tools).toEqual([
      expect.objectContaining({
        name: 'GET_WEATHER',
        inputSchema: expect.objectContaining({ required: ['city'] }),
      }),
    ]);
  });

  it('stream: tool_call and tool_result events come before done, in order', async () => {
    const response = await loop.send(loop.channel(), { text: 'Weather?', mode: 'stream' });
    const events = parseSse(await response.text());
    const names = events.map((event) => event.event);
    expect(names.indexOf('tool_call')).toBeLessThan(names.indexOf('tool_result'));
    expect(names.indexOf('tool_result')).toBeLessThan(names.indexOf('done'));
    expect(events.find((event) => event.event === 'tool_call')!.data).toEqual({
      toolCallId: 'call_1',
      toolName: 'GET_WEATHER',
      input: { city: 'Paris' },
    });
    expect(events.find((event) => event.event === 'tool_result')!.data).toEqual({
      toolCallId: 'call_1',
      toolName: 'GET_WEATHER',
      output: { text: 'Sunny in Paris, 21 °C' },
    });
  });

  it('websocket: the room hears the call, its result and the answer', async () => {
    const socket = await connectClient(loop.test.url, 'websocket');
    try {
      const channelId = loop.channel();
      await joinRoom(socket, channelId, 'user-1');
      const called = nextEvent(socket, 'toolCall' as never);
      const resulted = nextEvent(socket, 'toolResult' as never);
      const answered = nextEvent(socket, 'messageBroadcast', (m) => m.senderId !== 'user-1');
      await loop.send(channelId, { text: 'Weather?', mode: 'websocket' });
      expect(await called).toMatchObject({ toolName: 'GET_WEATHER', input: { city: 'Paris' } });
      expect(await resulted).toMatchObject({ output: { text: 'Sunny in Paris, 21 °C' } });
      expect((await answered).text).toBe('Done: Sunny in Paris, 21 °C');
    } finally {
      socket.close();
    }
  });

  it('a follow-up turn gives the model the earlier call and its result', async () => {
    const channelId = loop.channel();
    await loop.sync(channelId, 'Weather in Paris?');
    loop.model.behaviour = { reply: 'As I said.', plain: true };
    await loop.sync(channelId, 'And again?');
    const request = loop.model.requests.at(-1)!;
    const call = request.messages.find((m) => m.role === 'assistant' && m.toolCalls?.length);
    expect(call).toMatchObject({
      toolCalls: [{ toolName: 'GET_WEATHER', input: '{"city":"Paris"}' }],
    });
    expect(toolResultsOf(request)).toEqual(['Sunny in Paris, 21 °C']);
  });

  it('a model that never stops calling tools ends at the bound, then answers without tools', async () => {
    const before = loop.model.requests.length;
    loop.model.behaviour = {
      toolCalls: (request) => (request.tools?.length ? [paris] : undefined),
      reply: 'Enough.',
      plain: true,
    };
    const body = await loop.sync(loop.channel(), 'Loop forever');
    const requests = loop.model.requests.slice(before);
    // The default bound: 8 steps with tools, then one without.
    expect(requests).toHaveLength(9);
    expect(requests.at(-1)!.tools).toBeUndefined();
    expect(requests.at(-1)!.messages[0]!.content).toMatch(/used every step/);
    expect(body.agentResponse.text).toBe('Enough.');
    expect(body.agentResponse.toolCalls).toHaveLength(8);
  });

  it('providers add context before each call; a failing or hanging one is skipped', async () => {
    await loop.sync(loop.channel(), 'Weather?');
    for (const request of loop.model.requests.slice(-2)) {
      expect(request.messages[0]!.content).toContain('It is tea time.');
    }
  });

  it('evaluators run after the reply, with the reply', async () => {
    await loop.sync(loop.channel(), 'Weather?');
    await expect.poll(() => evaluated.at(-1)).toBe('Done: Sunny in Paris, 21 °C');
  });

  it('a model without tool calling names the action in <actions> with <params>', async () => {
    loop.model.callsTools = false;
    loop.model.behaviour = {
      reply: (request) =>
        request.messages.at(-1)?.content.startsWith('[Result of action')
          ? `<response><actions>REPLY</actions><text>${request.messages.at(-1)!.content}</text></response>`
          : '<response><actions>GET_WEATHER</actions><params><GET_WEATHER><city>Oslo</city></GET_WEATHER></params><text></text></response>',
      plain: true,
    };
    const body = await loop.sync(loop.channel(), 'Weather in Oslo?');
    expect(loop.calls).toMatchObject([{ parameters: { city: 'Oslo' } }]);
    expect(body.agentResponse.text).toBe('[Result of action GET_WEATHER]: Sunny in Oslo, 21 °C');
    // The actions are described in the prompt, not sent as tools.
    expect(loop.model.requests.at(-2)!.tools).toBeUndefined();
    expect(loop.model.requests.at(-2)!.messages[0]!.content).toContain(
      '- GET_WEATHER: The weather',
    );
  });
});
