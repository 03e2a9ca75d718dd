import type { StreamShape } from './stream-shape';
import { DONE_EVENT, choiceEvent } from './stream-shape';

/**
 * LM Studio's OpenAI-compatible server (docs "Tool Use", "Streaming"): like OpenAI, the first delta of a call
 * has `index`, a numeric-string `id`, `type` and the name with `arguments: ''`, then argument fragments by
 * `index`; the last chunk has `finish_reason: 'tool_calls'`.
 */
export const LM_STUDIO_CALL: StreamShape = {
  name: 'LM Studio: like OpenAI',
  events: [
    choiceEvent({ role: 'assistant', content: '' }),
    choiceEvent({
      tool_calls: [
        {
          index: 0,
          id: '365174485',
          type: 'function',
          function: { name: 'get_delivery_date', arguments: '' },
        },
      ],
    }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '{"' } }] }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: 'order_id' } }] }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '":"' } }] }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '123' } }] }),
    choiceEvent({ tool_calls: [{ index: 0, function: { arguments: '"}' } }] }),
    choiceEvent({}, 'tool_calls'),
    DONE_EVENT,
  ],
  parts: [
    {
      type: 'tool-call',
      toolCallId: '365174485',
      toolName: 'get_delivery_date',
      input: '{"order_id":"123"}',
    },
    { type: 'finish', finishReason: 'tool-calls', usage: {} },
  ],
};
