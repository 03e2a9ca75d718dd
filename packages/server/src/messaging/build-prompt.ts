import type { StoredMessage } from '@parley/core';
import type { Character } from '@parley/plugin-sdk';
import type { ModelMessage } from '../models/model-provider';

/** How the model is asked to answer, so the action-aware extractor can stream its text. */
const RESPONSE_FORMAT =
  'Answer in exactly this format and nothing else:\n' +
  '<response><thought>your private reasoning</thought><actions>REPLY</actions><text>your reply</text></response>';

/**
 * The model's messages: the character's system prompt and bio, the response format, then the channel history
 * (oldest first) with the agent's own messages as `assistant`.
 */
export function buildPrompt(
  character: Readonly<Character>,
  agentId: string,
  history: readonly StoredMessage[],
): ModelMessage[] {
  const bio = Array.isArray(character.bio) ? character.bio.join('\n') : (character.bio ?? '');
  const system = [character.system ?? `You are ${character.name}.`, bio, RESPONSE_FORMAT]
    .filter((part) => part.trim() !== '')
    .join('\n\n');
  const messages: ModelMessage[] = [{ role: 'system', content: system }];
  for (const message of history) {
    messages.push({
      role: message.author_id === agentId ? 'assistant' : 'user',
      content: message.content,
    });
  }
  return messages;
}
