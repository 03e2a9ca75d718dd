import type { ModelStreamPartV2 } from '../../model-provider';
import { DONE_EVENT, toChunkEvent } from '../chat-completion-bodies';

/** A server's streamed answer, written from its documented format, and the parts a client must read from it. */
export interface StreamShape {
  /** e.g. `OpenAI: two parallel calls` */
  name: string;
  /** The event-stream body, in the pieces the server writes. */
  events: string[];
  /** The model stream parts a client yields for it, in order. */
  parts: ModelStreamPartV2[];
}

/** A chunk with one choice: its delta and finish reason, and other chunk fields (usage, timings). */
export function choiceEvent(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  return toChunkEvent({ choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra });
}

/** The usage chunk OpenAI-compatible servers send last when asked (`stream_options.include_usage`). */
export function usageEvent(promptTokens: number, completionTokens: number): string {
  return toChunkEvent({
    choices: [],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  });
}

export { DONE_EVENT };
