/**
 * Streamed answers with tool calls or reasoning as OpenAI-compatible servers send them, each written from that
 * server's documented format, with the parts a client must read from them. For tests of both transports.
 */
import { LLAMA_CPP_DIFFS, NO_INDEX_NO_FINISH } from './llama-cpp';
import { LM_STUDIO_CALL } from './lm-studio';
import { OLLAMA_STOP_WITH_CALLS, OLLAMA_WHOLE_CALLS } from './ollama';
import {
  INTERLEAVED_CALLS,
  OPENAI_PARALLEL_CALLS,
  OPENAI_TEXT_THEN_CALL,
  OPENAI_TEXT_WITH_USAGE,
} from './openai';
import { OLLAMA_REASONING, VLLM_REASONING_CONTENT } from './reasoning';
import type { StreamShape } from './stream-shape';
import { VLLM_ID_ON_EVERY_DELTA, VLLM_NAME_THEN_DIFFS } from './vllm';

export type { StreamShape } from './stream-shape';
export { choiceEvent, usageEvent, DONE_EVENT } from './stream-shape';

/** Every documented shape. */
export const STREAM_SHAPES: readonly StreamShape[] = [
  OPENAI_PARALLEL_CALLS,
  OPENAI_TEXT_THEN_CALL,
  OPENAI_TEXT_WITH_USAGE,
  INTERLEAVED_CALLS,
  VLLM_NAME_THEN_DIFFS,
  VLLM_ID_ON_EVERY_DELTA,
  OLLAMA_WHOLE_CALLS,
  OLLAMA_STOP_WITH_CALLS,
  LLAMA_CPP_DIFFS,
  NO_INDEX_NO_FINISH,
  LM_STUDIO_CALL,
  VLLM_REASONING_CONTENT,
  OLLAMA_REASONING,
];

export {
  INTERLEAVED_CALLS,
  LLAMA_CPP_DIFFS,
  LM_STUDIO_CALL,
  NO_INDEX_NO_FINISH,
  OLLAMA_REASONING,
  OLLAMA_STOP_WITH_CALLS,
  OLLAMA_WHOLE_CALLS,
  OPENAI_PARALLEL_CALLS,
  OPENAI_TEXT_THEN_CALL,
  OPENAI_TEXT_WITH_USAGE,
  VLLM_ID_ON_EVERY_DELTA,
  VLLM_NAME_THEN_DIFFS,
  VLLM_REASONING_CONTENT,
};
