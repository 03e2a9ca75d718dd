import type { StreamShape } from './stream-shape';
import { DONE_EVENT, choiceEvent, usageEvent } from './stream-shape';

/**
 * OpenAI's Chat Completions streaming, as its API reference ("The chat completion chunk object") and function
 * calling guide ("Streaming") describe it: the first delta of a call carries `index`, `id`, `type: 'function'`,
 * `function.name` and `function.arguments: ''`; later deltas only `index` and argument fragments; parallel calls
 * follow each other by `index`; `content: null` alongside calls; the last choice chunk has `finish_reason:
 * 'tool_calls'`; with `stream_options.include_usage`, every chunk has `usage: null` and a last chunk has
 * `choices: []` and the usage.
 */
export const OPENAI_PARALLEL_CALLS: StreamShape = {
  name: 'OpenAI: two parallel calls, usage chunk',
  events: [
    choiceEvent({ role: 'assistant', content: null, refusal: null }, null, { usage: null }),
    choiceEvent(
      {
        tool_calls: [
          {
            index: 0,
            id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      },
      null,
      { usage: null },
    ),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '{"lo' } }] }, null, {
      usage: null,
    }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: 'cation": "Par' } }] }, null, {
      usage: null,
    }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: 'is, France"}' } }] }, null, {
      usage: null,
    }),
    choiceEvent(
      {
        tool_calls: [
          {
            index: 1,
            id: 'call_ABCDEFGHIJKLMNOPQRSTUVWX',
            type: 'function',
            function: { name: 'send_email', arguments: '' },
          },
        ],
      },
      null,
      { usage: null },
    ),
    choiceEvent(
      { tool_calls: [{ index: 1, function: { arguments: '{"to": "bob@example.com",' } }] },
      null,
      {
        usage: null,
      },
    ),
    choiceEvent({ tool_calls: [{ index: 1, function: { arguments: ' "body": "Hi é"}' } }] }, null, {
      usage: null,
    }),
    choiceEvent({}, 'tool_calls', { usage: null }),
    usageEvent(82, 41),
    DONE_EVENT,
  ],
  parts: [
    {
      type: 'tool-call',
      toolCallId: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
      toolName: 'get_weather',
      input: '{"location": "Paris, France"}',
    },
    {
      type: 'tool-call',
      toolCallId: 'call_ABCDEFGHIJKLMNOPQRSTUVWX',
      toolName: 'send_email',
      input: '{"to": "bob@example.com", "body": "Hi é"}',
    },
    { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 82, outputTokens: 41 } },
  ],
};

/** OpenAI: text first, then a call, in the same step (a model that says what it is about to do). */
export const OPENAI_TEXT_THEN_CALL: StreamShape = {
  name: 'OpenAI: text, then a call',
  events: [
    choiceEvent({ role: 'assistant', content: '' }),
    choiceEvent({ content: 'Let me check ' }),
    choiceEvent({ content: 'the weather.' }),
    choiceEvent({
      tool_calls: [
        {
          index: 0,
          id: 'call_1',
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        },
      ],
    }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '{"location":"Oslo"}' } }] }),
    choiceEvent({}, 'tool_calls'),
    DONE_EVENT,
  ],
  parts: [
    { type: 'text-delta', delta: 'Let me check ' },
    { type: 'text-delta', delta: 'the weather.' },
    {
      type: 'tool-call',
      toolCallId: 'call_1',
      toolName: 'get_weather',
      input: '{"location":"Oslo"}',
    },
    { type: 'finish', finishReason: 'tool-calls', usage: {} },
  ],
};

/** OpenAI: a plain text answer with the usage chunk. */
export const OPENAI_TEXT_WITH_USAGE: StreamShape = {
  name: 'OpenAI: text only, usage chunk',
  events: [
    choiceEvent({ role: 'assistant', content: '', refusal: null }, null, { usage: null }),
    choiceEvent({ content: 'Hello' }, null, { usage: null }),
    choiceEvent({ content: ' there.' }, null, { usage: null }),
    choiceEvent({}, 'stop', { usage: null }),
    usageEvent(12, 3),
    DONE_EVENT,
  ],
  parts: [
    { type: 'text-delta', delta: 'Hello' },
    { type: 'text-delta', delta: ' there.' },
    { type: 'finish', finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 3 } },
  ],
};

/**
 * Calls interleaved by `index` (the format allows it and clients must not assume one call at a time): the
 * fragments of two calls alternate, and a delta may carry pieces of both.
 */
export const INTERLEAVED_CALLS: StreamShape = {
  name: 'interleaved by index',
  events: [
    choiceEvent({
      role: 'assistant',
      content: null,
      tool_calls: [
        { index: 0, id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '' } },
        { index: 1, id: 'call_b', type: 'function', function: { name: 'lookup', arguments: '' } },
      ],
    }),
    choiceEvent({ tool_calls: [{ index: 1, function: { arguments: '{"q":' } }] }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }),
    choiceEvent({
      tool_calls: [
        { index: 0, function: { arguments: '"first"}' } },
        { index: 1, function: { arguments: '"second"}' } },
      ],
    }),
    choiceEvent({}, 'tool_calls'),
    DONE_EVENT,
  ],
  parts: [
    { type: 'tool-call', toolCallId: 'call_a', toolName: 'lookup', input: '{"q":"first"}' },
    { type: 'tool-call', toolCallId: 'call_b', toolName: 'lookup', input: '{"q":"second"}' },
    { type: 'finish', finishReason: 'tool-calls', usage: {} },
  ],
};
