import type { StreamShape } from './stream-shape';
import { DONE_EVENT, choiceEvent, usageEvent } from './stream-shape';

/**
 * vLLM with a reasoning parser (`vllm serve … --reasoning-parser deepseek_r1`; docs "Reasoning Outputs"), and
 * DeepSeek's own API (`deepseek-reasoner`): the reasoning streams in `delta.reasoning_content`, with no `content`
 * key, before the answer streams in `delta.content`.
 */
export const VLLM_REASONING_CONTENT: StreamShape = {
  name: 'vLLM, DeepSeek: reasoning_content before the answer',
  events: [
    choiceEvent({ role: 'assistant', content: '' }),
    choiceEvent({ reasoning_content: 'The user greets me; ' }),
    choiceEvent({ reasoning_content: 'a short greeting back.' }),
    choiceEvent({ content: 'Hello' }),
    choiceEvent({ content: ' there!' }),
    choiceEvent({}, 'stop'),
    usageEvent(12, 21),
    DONE_EVENT,
  ],
  parts: [
    { type: 'reasoning-delta', delta: 'The user greets me; ' },
    { type: 'reasoning-delta', delta: 'a short greeting back.' },
    { type: 'text-delta', delta: 'Hello' },
    { type: 'text-delta', delta: ' there!' },
    { type: 'finish', finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 21 } },
  ],
};

/**
 * Ollama's OpenAI compatibility with a thinking model (`qwen3`, `deepseek-r1`; `openai/openai.go`, field
 * `reasoning`): the thinking in `delta.reasoning` beside `content: ''`, then the answer, then a tool call whole in
 * one delta.
 */
export const OLLAMA_REASONING: StreamShape = {
  name: 'Ollama: reasoning beside empty content, then a call',
  events: [
    choiceEvent({ role: 'assistant', content: '', reasoning: 'They want the weather. ' }),
    choiceEvent({ role: 'assistant', content: '', reasoning: 'I will call the tool.' }),
    choiceEvent({ role: 'assistant', content: 'Checking.' }),
    choiceEvent({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: 'call_3kq9x2ab',
          index: 0,
          type: 'function',
          function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
        },
      ],
    }),
    choiceEvent({ role: 'assistant', content: '' }, 'tool_calls'),
    DONE_EVENT,
  ],
  parts: [
    { type: 'reasoning-delta', delta: 'They want the weather. ' },
    { type: 'reasoning-delta', delta: 'I will call the tool.' },
    { type: 'text-delta', delta: 'Checking.' },
    {
      type: 'tool-call',
      toolCallId: 'call_3kq9x2ab',
      toolName: 'get_weather',
      input: '{"location":"Paris"}',
    },
    { type: 'finish', finishReason: 'tool-calls', usage: {} },
  ],
};
