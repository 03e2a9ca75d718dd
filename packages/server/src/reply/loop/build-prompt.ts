import type { StoredMessage } from '@parley/core';
import type { Character } from '@parley/plugin-sdk';
import type { CharacterExampleLine, CharacterPromptParts } from '../agents/character';
import type { ModelMessage } from '../models/model-provider';

/** How the model is asked to answer, so the action-aware extractor can stream its text. */
const RESPONSE_FORMAT =
  'Answer in exactly this format and nothing else:\n' +
  '<response><thought>your private reasoning</thought><actions>REPLY</actions><text>your reply</text></response>';

/** The text lines of a string or list (a character given to `createServer` in code is not validated). */
function lines(value: unknown): string[] {
  const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return list
    .filter((line): line is string => typeof line === 'string')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** elizaOS placeholders: `{{name}}` and `{{agentName}}` are the agent, `{{user1}}` and `{{name1}}` a user. */
function fillPlaceholders(text: string, name: string): string {
  return text.replace(/\{\{(name|agentName|user\d*|name\d+)\}\}/g, (_, key: string) =>
    key === 'name' || key === 'agentName' ? name : 'User',
  );
}

function section(title: string, items: readonly string[]): string {
  return items.length === 0 ? '' : `${title}\n${items.map((item) => `- ${item}`).join('\n')}`;
}

/** The example conversations, one block each, the agent's lines under its name and everyone else's as User. */
function examples(character: Readonly<Character> & CharacterPromptParts): string {
  const blocks: string[] = [];
  const conversations: unknown = character.messageExamples;
  for (const conversation of Array.isArray(conversations) ? conversations : []) {
    const list: unknown = Array.isArray(conversation)
      ? conversation
      : (conversation as { examples?: unknown } | null)?.examples;
    if (!Array.isArray(list)) continue;
    const turns: string[] = [];
    for (const line of list as CharacterExampleLine[]) {
      const text = line?.content?.text;
      if (typeof text !== 'string' || text.trim() === '') continue;
      const said = line.name ?? line.user;
      const speaker = fillPlaceholders(typeof said === 'string' ? said.trim() : '', character.name);
      const who = speaker.toLowerCase() === character.name.toLowerCase() ? character.name : 'User';
      turns.push(`${who}: ${fillPlaceholders(text.trim(), character.name)}`);
    }
    if (turns.length > 0) blocks.push(turns.join('\n'));
  }
  return blocks.length === 0
    ? ''
    : `Examples of how ${character.name} talks:\n\n${blocks.join('\n\n')}`;
}

/**
 * The system prompt a character gives: its system prompt, bio and lore, the chat style (elizaOS `style.all` and
 * `style.chat`), example conversations (elizaOS `messageExamples`, `user` or `name` form), then the response format.
 * elizaOS placeholders are filled in with the agent's name.
 */
export function buildSystemPrompt(character: Readonly<Character> & CharacterPromptParts): string {
  const name = character.name;
  const about = [...lines(character.bio), ...lines(character.lore)].map((line) =>
    fillPlaceholders(line, name),
  );
  const style = [...lines(character.style?.all), ...lines(character.style?.chat)].map((line) =>
    fillPlaceholders(line, name),
  );
  return [
    fillPlaceholders(
      typeof character.system === 'string' ? character.system : `You are ${name}.`,
      name,
    ),
    section(`About ${name}:`, about),
    section('How to write:', style),
    examples(character),
    RESPONSE_FORMAT,
  ]
    .filter((part) => part.trim() !== '')
    .join('\n\n');
}

/**
 * The model's messages: the character's system prompt ({@link buildSystemPrompt}), then the channel history
 * (oldest first) with the agent's own messages as `assistant`.
 */
export function buildPrompt(
  character: Readonly<Character>,
  agentId: string,
  history: readonly StoredMessage[],
): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'system', content: buildSystemPrompt(character) }];
  for (const message of history) {
    messages.push({
      role: message.author_id === agentId ? 'assistant' : 'user',
      content: message.content,
    });
  }
  return messages;
}
