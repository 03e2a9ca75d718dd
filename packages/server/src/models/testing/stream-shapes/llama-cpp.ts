import type { StreamShape } from './stream-shape';
import { DONE_EVENT, choiceEvent } from './stream-shape';

/**
 * llama.cpp's `llama-server` with `--jinja` (tools/server README, "OpenAI-compatible Chat Completions API";
 * streamed tool calls are diffs of the parsed message): the first diff of a call has `index`, `id`, `type` and
 * `function.name` with `arguments: ''`, later diffs `index` and argument fragments; the first chunk has
 * `content: null`; the last chunk has `finish_reason: 'tool_calls'`, an empty delta and the usage (and
 * `timings`) even when not asked for.
 */
export const LLAMA_CPP_DIFFS: StreamShape = {
  name: 'llama.cpp: id and name first, argument diffs, usage on the finish chunk',
  events: [
    choiceEvent({ role: 'assistant', content: null }),
    choiceEvent({
      tool_calls: [
        {
          index: 0,
          id: 'Xq3IvZ8lGcUo5BxwXnQJ9S1n6sYzKt2R',
          type: 'function',
          function: { name: 'python', arguments: '' },
        },
      ],
    }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '{"code":"print(' } }] }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '2+2)"}' } }] }),
    choiceEvent({}, 'tool_calls', {
      usage: { completion_tokens: 19, prompt_tokens: 204, total_tokens: 223 },
      timings: { prompt_n: 204, prompt_ms: 51.2, predicted_n: 19, predicted_ms: 120.4 },
    }),
    DONE_EVENT,
  ],
  parts: [
    {
      type: 'tool-call',
      toolCallId: 'Xq3IvZ8lGcUo5BxwXnQJ9S1n6sYzKt2R',
      toolName: 'python',
      input: '{"code":"print(2+2)"}',
    },
    { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 204, outputTokens: 19 } },
  ],
};

/**
 * Defensive: argument fragments without `index` (older llama.cpp builds, and proxies such as Gemini's OpenAI
 * compatibility layer omit it); a fragment without one continues the last call. The stream also ends without
 * any finish reason, only `[DONE]`: the calls are handed out at the end, and the step reported as `tool-calls`.
 */
export const NO_INDEX_NO_FINISH: StreamShape = {
  name: 'no index on later deltas, no finish reason',
  events: [
    choiceEvent({ role: 'assistant', content: null }),
    choiceEvent({
      tool_calls: [
        { index: 0, id: 'call_q', type: 'function', function: { name: 'lookup', arguments: '' } },
      ],
    }),
    choiceEvent({ tool_calls: [{ function: { arguments: '{"q":' } }] }),
    choiceEvent({ tool_calls: [{ function: { arguments: '"x"}' } }] }),
    DONE_EVENT,
  ],
  parts: [
    { type: 'tool-call', toolCallId: 'call_q', toolName: 'lookup', input: '{"q":"x"}' },
    { type: 'finish', finishReason: 'tool-calls', usage: {} },
  ],
};
