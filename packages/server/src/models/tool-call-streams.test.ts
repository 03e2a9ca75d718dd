import { describe, expect, it } from 'vitest';
import {
  collect,
  collectAll,
  failureOf,
  request,
  resplit,
  upstream,
  WEATHER_TOOL,
} from './testing/tool-stream-harness';
import {
  DONE_EVENT,
  STREAM_SHAPES,
  VLLM_NAME_THEN_DIFFS,
  choiceEvent,
} from './testing/stream-shapes';

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
      { type: 'finish', finishReason: 'tool-calls', usage: {} },
    ]);
    const [first, second] = parts as { toolCallId: string }[];
    expect(first!.toolCallId).not.toBe(second!.toolCallId);
  });

  it("streams a call's input as it comes: start with its id and name, each fragment, end, then the call", async () => {
    await using fake = await upstream({ events: VLLM_NAME_THEN_DIFFS.events });
    const id = 'chatcmpl-tool-5d3a0e3c8b2f4e7a9c1d2e3f4a5b6c7d';
    expect(await collectAll(fake.model.stream(request))).toEqual([
      { type: 'tool-input-start', id, toolName: 'get_current_weather' },
      { type: 'tool-input-delta', id, delta: '{"city": "' },
      { type: 'tool-input-delta', id, delta: 'Dallas' },
      { type: 'tool-input-delta', id, delta: '", "unit": "fahrenheit"}' },
      { type: 'tool-input-end', id },
      ...VLLM_NAME_THEN_DIFFS.parts,
    ]);
  });

  it('starts the input of a call whose id comes late with that id, and of one without any at its end', async () => {
    await using fake = await upstream({
      events: [
        choiceEvent({ tool_calls: [{ index: 0, function: { name: 'late', arguments: '{"a":' } }] }),
        choiceEvent({ tool_calls: [{ index: 0, id: 'call_late', function: { arguments: '1}' } }] }),
        choiceEvent({ tool_calls: [{ index: 1, function: { name: 'none', arguments: '{}' } }] }),
        choiceEvent({}, 'tool_calls'),
        DONE_EVENT,
      ],
    });
    const parts = await collectAll(fake.model.stream(request));
    const none = parts.find((part) => part.type === 'tool-call' && part.toolName === 'none');
    const noneId = none?.type === 'tool-call' ? none.toolCallId : '';
    expect(noneId).toMatch(/^call_[\w-]{16}$/);
    expect(parts).toEqual([
      { type: 'tool-input-start', id: 'call_late', toolName: 'late' },
      { type: 'tool-input-delta', id: 'call_late', delta: '{"a":1}' },
      { type: 'tool-input-end', id: 'call_late' },
      { type: 'tool-call', toolCallId: 'call_late', toolName: 'late', input: '{"a":1}' },
      { type: 'tool-input-start', id: noneId, toolName: 'none' },
      { type: 'tool-input-delta', id: noneId, delta: '{}' },
      { type: 'tool-input-end', id: noneId },
      { type: 'tool-call', toolCallId: noneId, toolName: 'none', input: '{}' },
      { type: 'finish', finishReason: 'tool-calls', usage: {} },
    ]);
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
      { type: 'finish', finishReason: 'tool-calls', usage: {} },
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
      { type: 'finish', finishReason: 'tool-calls', usage: {} },
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
        usage: {},
      });
    }
    await using bare = await upstream({ events: [choiceEvent({ content: 'x' })] });
    expect(await collect(bare.model.stream(request))).toEqual([
      { type: 'text-delta', delta: 'x' },
      { type: 'finish', finishReason: 'stop', usage: {} },
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
