import type { StreamShape } from './stream-shape';
import { DONE_EVENT, choiceEvent, usageEvent } from './stream-shape';

/**
 * vLLM's OpenAI-compatible server with `--enable-auto-tool-choice` (docs: "Tool Calling"; the streaming tool
 * parsers such as `hermes`): the first delta of a call has `index`, `type`, an `id` of the form
 * `chatcmpl-tool-…` and `function.name` with no `arguments` key (fields left unset are omitted); then argument
 * diffs; `finish_reason: 'tool_calls'`; the usage chunk when `stream_options.include_usage` is set.
 */
export const VLLM_NAME_THEN_DIFFS: StreamShape = {
  name: 'vLLM: name first, then argument diffs',
  events: [
    choiceEvent({ role: 'assistant', content: '' }),
    choiceEvent({
      tool_calls: [
        {
          id: 'chatcmpl-tool-5d3a0e3c8b2f4e7a9c1d2e3f4a5b6c7d',
          type: 'function',
          index: 0,
          function: { name: 'get_current_weather' },
        },
      ],
    }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '{"city": "' } }] }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: 'Dallas' } }] }),
    choiceEvent({
      tool_calls: [{ index: 0, function: { arguments: '", "unit": "fahrenheit"}' } }],
    }),
    choiceEvent({ content: '' }, 'tool_calls'),
    usageEvent(300, 27),
    DONE_EVENT,
  ],
  parts: [
    {
      type: 'tool-call',
      toolCallId: 'chatcmpl-tool-5d3a0e3c8b2f4e7a9c1d2e3f4a5b6c7d',
      toolName: 'get_current_weather',
      input: '{"city": "Dallas", "unit": "fahrenheit"}',
    },
    { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 300, outputTokens: 27 } },
  ],
};

/**
 * vLLM with some parsers and with a named `tool_choice`: the `id` (and the name) repeated on every delta of a
 * call, or the arguments whole in the first delta; two calls of the same tool.
 */
export const VLLM_ID_ON_EVERY_DELTA: StreamShape = {
  name: 'vLLM: id on every delta, arguments whole',
  events: [
    choiceEvent({ role: 'assistant', content: null }),
    choiceEvent({
      tool_calls: [
        {
          id: 'chatcmpl-tool-aaa',
          type: 'function',
          index: 0,
          function: { name: 'search', arguments: '{"query": ' },
        },
      ],
    }),
    choiceEvent({
      tool_calls: [
        { id: 'chatcmpl-tool-aaa', type: 'function', index: 0, function: { arguments: '"vllm"}' } },
      ],
    }),
    choiceEvent({
      tool_calls: [
        {
          id: 'chatcmpl-tool-bbb',
          type: 'function',
          index: 1,
          function: { name: 'search', arguments: '{"query": "tool calling"}' },
        },
      ],
    }),
    choiceEvent({}, 'tool_calls'),
    DONE_EVENT,
  ],
  parts: [
    {
      type: 'tool-call',
      toolCallId: 'chatcmpl-tool-aaa',
      toolName: 'search',
      input: '{"query": "vllm"}',
    },
    {
      type: 'tool-call',
      toolCallId: 'chatcmpl-tool-bbb',
      toolName: 'search',
      input: '{"query": "tool calling"}',
    },
    { type: 'finish', finishReason: 'tool-calls', usage: {} },
  ],
};
