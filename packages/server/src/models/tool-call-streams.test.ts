import { ParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamPart } from './model-provider';
import {
  type OpenAICompatibleModelOptions,
  createOpenAICompatibleModel,
} from './openai-compatible-model';
import { type FakeOpenAIServerOptions, startFakeOpenAIServer } from './testing/fake-openai-server';
import {
  DONE_EVENT,
  NO_INDEX_NO_FINISH,
  OPENAI_PARALLEL_CALLS,
  OPENAI_TEXT_THEN_CALL,
  OPENAI_TEXT_WITH_USAGE,
  STREAM_SHAPES,
  choiceEvent,
  usageEvent,
} from './testing/stream-shapes';
import { toToolCallEvents } from './testing/chat-completion-bodies';

const request: ModelRequest = {
  agentName: 'Eliza',
  messages: [
    { role: 'system', content: 'You are Eliza.' },
    { role: 'user', content: 'Weather in Paris, then mail Bob.' },
  ],
};

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The weather in a city.',
  inputSchema: {
    type: 'object',
    properties: { location: { type: 'string' } },
    required: ['location'],
  },
};

async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

async function failureOf(stream: AsyncIterable<ModelStreamPart>): Promise<ParleyError> {
  const error: unknown = await collect(stream).then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  if (!ParleyError.isInstance(error))
    throw new Error(`expected a ParleyError, got ${String(error)}`);
  return error;
}

/** The event-stream text cut into pieces of `size` characters, wherever they fall (inside events and JSON). */
function resplit(events: readonly string[], size: number): string[] {
  const text = events.join('');
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size)
    pieces.push(text.slice(start, start + size));
  return pieces;
}

/** Both client paths: the direct node:http one (default) and the AI SDK's, taken when `fetch` is replaced. */
const viaFetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init);

async function upstream(
  options: FakeOpenAIServerOptions,
  model: Partial<OpenAICompatibleModelOptions> = {},
) {
  const bodies: Record<string, unknown>[] = [];
  let ended: (outcome: 'completed' | 'aborted') => void = () => {};
  const outcome = new Promise<'completed' | 'aborted'>((resolve) => (ended = resolve));
  const server = await startFakeOpenAIServer({
    ...options,
    onRequest: ({ body }) => bodies.push(body as Record<string, unknown>),
    onRequestEnd: (value) => ended(value),
  });
  const provider = createOpenAICompatibleModel({
    baseUrl: server.url,
    model: 'fake-model',
    timeoutMs: 5000,
    ...model,
  });
  return { server, model: provider, bodies, outcome, [Symbol.asyncDispose]: () => server.close() };
}

describe('tool calls streamed over node:http', () => {
  it.each(STREAM_SHAPES.map((shape) => [shape.name, shape] as const))(
    '%s gives the exact parts',
    async (_name, shape) => {
      await using fake = await upstream({ events: shape.events });
      expect(fake.model.callsTools).toBe(true);
      expect(await collect(fake.model.stream({ ...request, tools: [WEATHER_TOOL] }))).toEqual(
        shape.parts,
      );
      expect(await fake.outcome).toBe('completed');
    },
  );

  it.each(STREAM_SHAPES.map((shape) => [shape.name, shape] as const))(
    '%s gives the same parts when the bytes arrive cut anywhere',
    async (_name, shape) => {
      await using fake = await upstream({ events: resplit(shape.events, 7), chunkDelayMs: 1 });
      expect(await collect(fake.model.stream(request))).toEqual(shape.parts);
    },
  );

  it('gives an id to a call without one, and `{}` to a call without arguments', async () => {
    await using fake = await upstream({
      events: [
        choiceEvent({
          tool_calls: [
            { index: 0, type: 'function', function: { name: 'ping' } },
            { index: 1, type: 'function', function: { name: 'pong', arguments: '  ' } },
          ],
        }),
        choiceEvent({}, 'tool_calls'),
        DONE_EVENT,
      ],
    });
    const parts = await collect(fake.model.stream(request));
    expect(parts).toEqual([
      {
        type: 'tool-call',
        toolCallId: expect.stringMatching(/^call_[\w-]{16}$/),
        toolName: 'ping',
        input: '{}',
      },
      {
        type: 'tool-call',
        toolCallId: expect.stringMatching(/^call_[\w-]{16}$/),
        toolName: 'pong',
        input: '{}',
      },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    const [first, second] = parts as { toolCallId: string }[];
    expect(first!.toolCallId).not.toBe(second!.toolCallId);
  });

  it('tells apart calls that reuse index 0, by their ids or by a repeated whole call', async () => {
    await using fake = await upstream({
      events: [
        choiceEvent({
          tool_calls: [{ index: 0, id: 'call_1', function: { name: 'add', arguments: '{"n":1}' } }],
        }),
        choiceEvent({
          tool_calls: [{ index: 0, id: 'call_2', function: { name: 'add', arguments: '{"n":2}' } }],
        }),
        // No id at all: the same tool named again after a whole call is another call.
        choiceEvent({
          tool_calls: [{ index: 0, function: { name: 'add', arguments: '{"n":3}' } }],
        }),
        choiceEvent({}, 'tool_calls'),
        DONE_EVENT,
      ],
    });
    const parts = await collect(fake.model.stream(request));
    expect(parts.filter((part) => part.type === 'tool-call').map((part) => part.input)).toEqual([
      '{"n":1}',
      '{"n":2}',
      '{"n":3}',
    ]);
    expect(parts.slice(0, 2)).toMatchObject([{ toolCallId: 'call_1' }, { toolCallId: 'call_2' }]);
  });

  it('takes a name that comes after the arguments, and arguments sent as an object', async () => {
    await using fake = await upstream({
      events: [
        choiceEvent({
          tool_calls: [{ index: 0, id: 'call_late', function: { arguments: '{"a":' } }],
        }),
        choiceEvent({ tool_calls: [{ index: 0, function: { name: 'late', arguments: '1}' } }] }),
        choiceEvent({
          tool_calls: [
            { index: 1, id: 'call_obj', function: { name: 'obj', arguments: { b: [2] } } },
          ],
        }),
        choiceEvent({}, 'tool_calls'),
        DONE_EVENT,
      ],
    });
    expect(await collect(fake.model.stream(request))).toEqual([
      { type: 'tool-call', toolCallId: 'call_late', toolName: 'late', input: '{"a":1}' },
      { type: 'tool-call', toolCallId: 'call_obj', toolName: 'obj', input: '{"b":[2]}' },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
  });

  it('hands out calls when the connection closes without [DONE] or a finish reason', async () => {
    await using fake = await upstream({
      events: [
        choiceEvent({ content: 'One moment.' }),
        choiceEvent({
          tool_calls: [{ index: 0, id: 'call_z', function: { name: 'wait', arguments: '{}' } }],
        }),
      ],
    });
    expect(await collect(fake.model.stream(request))).toEqual([
      { type: 'text-delta', delta: 'One moment.' },
      { type: 'tool-call', toolCallId: 'call_z', toolName: 'wait', input: '{}' },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
  });

  it('maps the other finish reasons and reports a text-only stream without one as stop', async () => {
    const reasons = [
      ['length', 'length'],
      ['content_filter', 'content-filter'],
      ['function_call', 'tool-calls'],
      ['something_new', 'other'],
    ] as const;
    for (const [wire, unified] of reasons) {
      await using fake = await upstream({
        events: [choiceEvent({ content: 'x' }), choiceEvent({}, wire), DONE_EVENT],
      });
      expect((await collect(fake.model.stream(request))).at(-1)).toEqual({
        type: 'finish',
        finishReason: unified,
      });
    }
    await using bare = await upstream({ events: [choiceEvent({ content: 'x' })] });
    expect(await collect(bare.model.stream(request))).toEqual([
      { type: 'text-delta', delta: 'x' },
      { type: 'finish', finishReason: 'stop' },
    ]);
  });

  it('keeps the usage when it comes on a chunk without choices at all', async () => {
    await using fake = await upstream({
      events: [
        choiceEvent({ content: 'x' }, 'stop'),
        `data: ${JSON.stringify({ id: 'c', usage: { prompt_tokens: 5 } })}\n\n`,
        DONE_EVENT,
      ],
    });
    expect((await collect(fake.model.stream(request))).at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 5 },
    });
  });

  it('fails a call that never gets a name as a malformed response', async () => {
    await using fake = await upstream({
      events: [
        choiceEvent({ tool_calls: [{ index: 0, id: 'call_n', function: { arguments: '{}' } }] }),
        choiceEvent({}, 'tool_calls'),
        DONE_EVENT,
      ],
    });
    const error = await failureOf(fake.model.stream(request));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toBe('The model service sent a malformed response');
  });

  it('fails tool_calls that are not a list as a malformed response', async () => {
    await using fake = await upstream({
      events: [choiceEvent({ tool_calls: { index: 0 } }), DONE_EVENT],
    });
    const error = await failureOf(fake.model.stream(request));
    expect(error.message).toBe('The model service sent a malformed response');
  });
});

describe('tool call bounds', () => {
  const manyCalls = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      id: `call_${index}`,
      name: 'noop',
      arguments: '{}',
    }));

  it.each([
    ['over node:http', undefined],
    ['through the AI SDK', viaFetch],
  ] as const)('accepts 128 calls in a step %s', async (_path, fetch) => {
    await using fake = await upstream({ events: toToolCallEvents(manyCalls(128)) }, { fetch });
    const parts = await collect(fake.model.stream(request));
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(128);
  });

  it.each([
    ['over node:http', undefined],
    ['through the AI SDK', viaFetch],
  ] as const)('fails the 129th call with MODEL_ERROR %s', async (_path, fetch) => {
    await using fake = await upstream({ events: toToolCallEvents(manyCalls(129)) }, { fetch });
    const error = await failureOf(fake.model.stream(request));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toBe('The model made more than 128 tool calls in one step');
  });

  it.each([
    ['over node:http', undefined],
    ['through the AI SDK', viaFetch],
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
    ['through the AI SDK', viaFetch],
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

describe('tool calls through the AI SDK (fetch replaced)', () => {
  // Every shape but the one without a finish reason: the AI SDK's provider fails a stream that never says why it
  // ended ("Response stream ended without a finish reason"), where the direct path reports the step as ended.
  const shapes = STREAM_SHAPES.filter((shape) => shape !== NO_INDEX_NO_FINISH);

  it('is checked against the OpenAI shapes among others', () => {
    expect(shapes).toEqual(
      expect.arrayContaining([
        OPENAI_PARALLEL_CALLS,
        OPENAI_TEXT_THEN_CALL,
        OPENAI_TEXT_WITH_USAGE,
      ]),
    );
  });

  it.each(shapes.map((shape) => [shape.name, shape] as const))(
    '%s gives the same parts as the direct path',
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
  ['through the AI SDK', viaFetch],
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
