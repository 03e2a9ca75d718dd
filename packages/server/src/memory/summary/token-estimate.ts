import type { StoredMessage } from '@parley/core';

/**
 * Characters per token assumed when counting a prompt. English text runs near 4 characters per token in the
 * BPE vocabularies of OpenAI, Llama and Mistral models; 3.5 errs on the side of counting more tokens (code,
 * numbers and other languages run denser), so a prompt counted within its budget is within it for those models.
 */
const CHARACTERS_PER_TOKEN = 3.5;
/** What a chat template adds around each turn (role markers, separators). */
const TOKENS_PER_TURN = 4;

/** An upper estimate of the tokens of a text in a model's prompt. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN);
}

/** An upper estimate of the tokens a stored message takes in the prompt: its text and its tool calls. */
export function messageTokens(message: StoredMessage): number {
  const calls = (message.raw_message as { toolCalls?: unknown } | null | undefined)?.toolCalls;
  const callText = calls === undefined ? '' : JSON.stringify(calls);
  return estimateTokens(message.content) + estimateTokens(callText) + TOKENS_PER_TURN;
}
