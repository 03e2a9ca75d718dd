import type { StreamShape } from './stream-shape';
import { DONE_EVENT, choiceEvent, usageEvent } from './stream-shape';

/**
 * Ollama's OpenAI compatibility (`/v1/chat/completions`, docs "OpenAI compatibility"; `openai/openai.go`): each
 * call whole in one delta, with an `id` of the form `call_` + 8 characters, `index`, the name and the complete
 * arguments, beside `content: ''` and `role`; the last chunk has `finish_reason: 'tool_calls'`; the usage chunk
 * when `stream_options.include_usage` is set.
 */
export const OLLAMA_WHOLE_CALLS: StreamShape = {
  name: 'Ollama: each call whole in one delta',
  events: [
    choiceEvent({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: 'call_wteop8bt',
          index: 0,
          type: 'function',
          function: { name: 'run_command', arguments: '{"command":"ls"}' },
        },
      ],
    }),
    choiceEvent({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: 'call_rk2xye1l',
          index: 1,
          type: 'function',
          function: { name: 'run_command', arguments: '{"command":"ls -l"}' },
        },
      ],
    }),
    choiceEvent({ role: 'assistant', content: '' }, 'tool_calls'),
    usageEvent(151, 38),
    DONE_EVENT,
  ],
  parts: [
    {
      type: 'tool-call',
      toolCallId: 'call_wteop8bt',
      toolName: 'run_command',
      input: '{"command":"ls"}',
    },
    {
      type: 'tool-call',
      toolCallId: 'call_rk2xye1l',
      toolName: 'run_command',
      input: '{"command":"ls -l"}',
    },
    { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 151, outputTokens: 38 } },
  ],
};

/**
 * Older Ollama versions: the call whole, without `index`, and the step ending with `finish_reason: 'stop'` even
 * though a call was made. The reason is kept as the server said it; the calls still come.
 */
export const OLLAMA_STOP_WITH_CALLS: StreamShape = {
  name: "Ollama (older): no index, finish 'stop' with a call",
  events: [
    choiceEvent({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: 'call_x1y2z3w4',
          type: 'function',
          function: { name: 'get_time', arguments: '{"zone":"UTC"}' },
        },
      ],
    }),
    choiceEvent({ role: 'assistant', content: '' }, 'stop'),
    DONE_EVENT,
  ],
  parts: [
    {
      type: 'tool-call',
      toolCallId: 'call_x1y2z3w4',
      toolName: 'get_time',
      input: '{"zone":"UTC"}',
    },
    { type: 'finish', finishReason: 'stop', usage: {} },
  ],
};
