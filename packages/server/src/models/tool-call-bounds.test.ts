import { describe, expect, it } from 'vitest';
import {
  collect,
  failureOf,
  request,
  upstream,
  viaFetch,
  WEATHER_TOOL,
} from './testing/tool-stream-harness';
import {
  DONE_EVENT,
  NO_INDEX_NO_FINISH,
  OPENAI_PARALLEL_CALLS,
  OPENAI_TEXT_WITH_USAGE,
  STREAM_SHAPES,
  choiceEvent,
  usageEvent,
} from './testing/stream-shapes';
import { toToolCallEvents } from './testing/chat-completion-bodies';

import type { ModelRequest } from './model-provider';

describe('tool call bounds', () => {
  const manyCalls = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      id: `call_${index}`,
      name: 'noop',
      arguments: '{}',
    }));

  it.each([
    ['over node:http', undefined],
    ['through a replaced fetch', viaFetch],
  ] as const)('accepts 128 calls in a step %s', async (_path, fetch) => {
    await using fake = await upstream({ events: toToolCallEvents(manyCalls(128)) }, { fetch });
    const parts = await collect(fake.model.stream(request));
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(128);
  });

  it.each([
    ['over node:http', undefined],
    ['through a replaced fetch', viaFetch],
  ] as const)('fails the 129th call with MODEL_ERROR %s', async (_path, fetch) => {
    await using fake = await upstream({ events: toToolCallEvents(manyCalls(129)) }, { fetch });
    const error = await failureOf(fake.model.stream(request));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toBe('The model made more than 128 tool calls in one step');
  });

  it.each([
    ['over node:http', undefined],
    ['through a replaced fetch', viaFetch],
  ] as const)(
    'fails arguments over 1 MiB with MODEL_ERROR and hangs up %s',
    async (_path, fetch) => {
      const fragment = `"${'x'.repeat(64 * 1024)}",`;
      const events = [
        choiceEvent({
          tool_calls: [
            {
              index: 0,
              id: 'call_big',
              type: 'function',
              function: { name: 'big', arguments: '[' },
            },
          ],
        }),
        // 20 fragments of 64 KiB: past 1 MiB, and the server would go on.
        ...Array.from({ length: 20 }, () =>
          choiceEvent({ tool_calls: [{ index: 0, function: { arguments: fragment } }] }),
        ),
        choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '0]' } }] }),
        choiceEvent({}, 'tool_calls'),
        DONE_EVENT,
      ];
      await using fake = await upstream({ events, chunkDelayMs: fetch ? 0 : 1 }, { fetch });
      const error = await failureOf(fake.model.stream(request));
      expect(error.code).toBe('MODEL_ERROR');
      expect(error.message).toBe('The model sent tool call arguments over 1 MiB');
      if (!fetch) expect(await fake.outcome).toBe('aborted');
      // The model is still usable afterwards.
      await using next = await upstream({ events: OPENAI_TEXT_WITH_USAGE.events }, { fetch });
      expect(await collect(next.model.stream(request))).toEqual(OPENAI_TEXT_WITH_USAGE.parts);
    },
  );

  it('counts arguments in UTF-8 bytes: 1 MiB of them passes, one byte more fails', async () => {
    const exactly = (bytes: number) => [
      choiceEvent({
        tool_calls: [
          {
            index: 0,
            id: 'call_b',
            function: { name: 'big', arguments: `"${'é'.repeat((bytes - 2) / 2)}"` },
          },
        ],
      }),
      choiceEvent({}, 'tool_calls'),
      DONE_EVENT,
    ];
    await using fits = await upstream({ events: exactly(1024 * 1024) });
    const parts = await collect(fits.model.stream(request));
    expect(parts[0]).toMatchObject({ type: 'tool-call', toolName: 'big' });
    await using over = await upstream({
      events: [
        ...exactly(1024 * 1024).slice(0, 1),
        choiceEvent({ tool_calls: [{ index: 0, function: { arguments: ' ' } }] }),
        DONE_EVENT,
      ],
    });
    expect((await failureOf(over.model.stream(request))).message).toBe(
      'The model sent tool call arguments over 1 MiB',
    );
  });

  it.each([
    ['over node:http', undefined],
    ['through a replaced fetch', viaFetch],
  ] as const)('fails a tool name over 256 characters with MODEL_ERROR %s', async (_path, fetch) => {
    await using fake = await upstream(
      { events: toToolCallEvents([{ id: 'call_long', name: 'n'.repeat(257), arguments: '{}' }]) },
      { fetch },
    );
    const error = await failureOf(fake.model.stream(request));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toBe('The model named a tool with more than 256 characters');
    await using ok = await upstream(
      { events: toToolCallEvents([{ id: 'call_ok', name: 'n'.repeat(256), arguments: '{}' }]) },
      { fetch },
    );
    expect((await collect(ok.model.stream(request)))[0]).toMatchObject({
      toolName: 'n'.repeat(256),
    });
  });
});

describe('tool calls through a replaced fetch', () => {
  // The same parser as over node:http: every shape, the one without a finish reason too (the AI SDK's provider,
  // which read this path before, failed it with "Response stream ended without a finish reason").
  it('is checked against every shape', () => {
    expect(STREAM_SHAPES).toEqual(
      expect.arrayContaining([NO_INDEX_NO_FINISH, OPENAI_PARALLEL_CALLS, OPENAI_TEXT_WITH_USAGE]),
    );
  });

  it.each(STREAM_SHAPES.map((shape) => [shape.name, shape] as const))(
    '%s gives the same parts as over node:http',
    async (_name, shape) => {
      await using fake = await upstream({ events: shape.events }, { fetch: viaFetch });
      expect(fake.model.callsTools).toBe(true);
      expect(await collect(fake.model.stream({ ...request, tools: [WEATHER_TOOL] }))).toEqual(
        shape.parts,
      );
    },
  );
});

describe.each([
  ['over node:http', undefined],
  ['through a replaced fetch', viaFetch],
] as const)('the request %s', (_path, fetch) => {
  const conversation: ModelRequest = {
    agentName: 'Eliza',
    tools: [WEATHER_TOOL],
    messages: [
      { role: 'system', content: 'You are Eliza.' },
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { toolCallId: 'call_1', toolName: 'get_weather', input: '{"location":"Paris"}' },
          { toolCallId: 'call_2', toolName: 'get_weather', input: '{"location":"Oslo"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', toolName: 'get_weather', content: '{"celsius":21}' },
      { role: 'tool', toolCallId: 'call_2', toolName: 'get_weather', content: 'unavailable' },
      {
        role: 'assistant',
        content: 'Checking once more.',
        toolCalls: [
          { toolCallId: 'call_3', toolName: 'get_weather', input: '{"location":"Oslo"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_3', toolName: 'get_weather', content: '{"celsius":9}' },
      { role: 'assistant', content: 'Paris 21°C, Oslo 9°C.' },
      { role: 'user', content: 'Thanks' },
    ],
  };

  it('sends the tools, the tool calls and their results, and asks for usage', async () => {
    await using fake = await upstream({ events: OPENAI_TEXT_WITH_USAGE.events }, { fetch });
    await collect(fake.model.stream(conversation));
    const body = fake.bodies[0]!;
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather in a city.',
          parameters: WEATHER_TOOL.inputSchema,
        },
      },
    ]);
    expect(body).not.toHaveProperty('tool_choice');
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Eliza.' },
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Oslo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"celsius":21}' },
      { role: 'tool', tool_call_id: 'call_2', content: 'unavailable' },
      {
        role: 'assistant',
        content: 'Checking once more.',
        tool_calls: [
          {
            id: 'call_3',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Oslo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_3', content: '{"celsius":9}' },
      { role: 'assistant', content: 'Paris 21°C, Oslo 9°C.' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  it('sends no tools and no tools field when there are none', async () => {
    await using fake = await upstream({ events: OPENAI_TEXT_WITH_USAGE.events }, { fetch });
    await collect(fake.model.stream({ ...request, tools: [] }));
    expect(fake.bodies[0]).not.toHaveProperty('tools');
  });

  it('never sends tools with callsTools: false, nor stream_options with includeUsage: false', async () => {
    await using fake = await upstream(
      { events: OPENAI_TEXT_WITH_USAGE.events },
      { fetch, callsTools: false, includeUsage: false },
    );
    expect(fake.model.callsTools).toBe(false);
    const parts = await collect(fake.model.stream(conversation));
    expect(parts.at(-1)).toEqual(OPENAI_TEXT_WITH_USAGE.parts.at(-1));
    expect(fake.bodies[0]).not.toHaveProperty('tools');
    expect(fake.bodies[0]).not.toHaveProperty('stream_options');
  });

  it('still gives the text and its finish when the usage chunk comes last', async () => {
    await using fake = await upstream(
      {
        events: [
          choiceEvent({ role: 'assistant', content: 'ok' }),
          choiceEvent({}, 'stop'),
          usageEvent(1, 1),
          DONE_EVENT,
        ],
      },
      { fetch },
    );
    expect(await collect(fake.model.stream(request))).toEqual([
      { type: 'text-delta', delta: 'ok' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
  });
});
