import { characterLines } from '../character-lines';
import type { ModelCharacter, ModelMessage } from '../model-provider';
import { type ElizaReply, NO_KEYWORD_THOUGHT } from './eliza-reply';
import { hashText } from './hash-text';
import { OFFLINE_NOTE } from './offline-note';

/**
 * The offline model speaking as the agent's character where it can: a greeting answered with the character's
 * own name and description (not DOCTOR's "How do you do"), "who are you" with its system prompt and bio, a
 * message like one of its `messageExamples` with the line the character gave there, and, when the script has
 * nothing to key on, one of its `postExamples`. Everything is derived from the character and the messages,
 * never from chance, so a conversation always gets the same answers.
 */

const GREETING =
  /^(?:hi|hello|hey|hiya|howdy|greetings|yo|hallo|hola|bonjour|good\s+(?:morning|afternoon|evening|day)|how\s+do\s+you\s+do|how\s+are\s+you)\b/i;
const IDENTITY =
  /\b(?:who\s+are\s+you|what\s+are\s+you|tell\s+me\s+about\s+yourself|introduce\s+yourself|what(?:'s|\s+is)\s+your\s+name)\b/i;
const CAPABILITY =
  /\b(?:what\s+can\s+you\s+do|what\s+do\s+you\s+do|how\s+can\s+you\s+help|what\s+are\s+you\s+good\s+at|can\s+you\s+help(?:\s+me)?)\b/i;
/** Longest text taken from a character into one reply. */
const MAX_TAKEN = 600;
/** Word overlap (Jaccard) from which a message counts as the same as an example's. */
const SAME_MESSAGE = 0.6;

/**
 * Character text made safe for the reply: elizaOS placeholders filled (the agent's name; a user is "you"),
 * tags and markup characters left out (the reply is wrapped in XML and shown in a chat page), and bounded.
 */
function plain(text: string, name: string): string {
  const filled = text
    .replace(/\{\{(?:name|agentName)\}\}/g, name)
    .replace(/\{\{(?:user\d*|name\d+)\}\}/g, 'you')
    .replace(/<[^<>]{0,200}>/g, '')
    .replace(/&/g, 'and')
    .replace(/[<>]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return filled.length > MAX_TAKEN ? `${filled.slice(0, MAX_TAKEN - 1).trimEnd()}…` : filled;
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []);
}

function overlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What the character is, in a phrase to follow "I'm NAME, ": from a system prompt of the form "You are NAME, a
 * …", "You are NAME - …" or "You are a …"; else undefined.
 */
export function describeCharacter(character: ModelCharacter, name: string): string | undefined {
  const system = typeof character.system === 'string' ? plain(character.system, name) : '';
  const named = new RegExp(
    `^you\\s+are\\s+${escapeRegExp(name)}\\s*(?:,|:|\\s-|\\s–|\\s—)\\s*([^.!?\\n]{3,160})`,
    'i',
  ).exec(system);
  if (named) return named[1]!.trim();
  const unnamed = /^you\s+are\s+((?:an?|the)\s+[^.!?\n]{3,160})/i.exec(system);
  return unnamed?.[1]?.trim();
}

/** "I'm Ada, a concise engineering assistant." and the bio lines that say more. */
function introduction(character: ModelCharacter, name: string): string {
  const description = describeCharacter(character, name);
  const bio = characterLines(character.bio)
    .map((line) => plain(line, name))
    .filter((line) => line !== '' && (!description || !line.includes(description)))
    .slice(0, 2)
    .map((line) => (/[.!?\u2026]$/.test(line) ? line : `${line}.`));
  return [description ? `I'm ${name}, ${description}.` : `I'm ${name}.`, ...bio].join(' ');
}

/** The example exchanges: each user line with the agent's line that answers it. */
function exampleExchanges(character: ModelCharacter, name: string): [string, string][] {
  const exchanges: [string, string][] = [];
  const conversations = Array.isArray(character.messageExamples) ? character.messageExamples : [];
  for (const conversation of conversations as unknown[]) {
    const list: unknown = Array.isArray(conversation)
      ? conversation
      : (conversation as { examples?: unknown } | null)?.examples;
    if (!Array.isArray(list)) continue;
    let asked: string | undefined;
    for (const line of list as { user?: unknown; name?: unknown; content?: { text?: unknown } }[]) {
      const text = line?.content?.text;
      if (typeof text !== 'string' || text.trim() === '') continue;
      const said = line.name ?? line.user;
      const speaker = typeof said === 'string' ? said.trim() : '';
      const isAgent =
        speaker.toLowerCase() === name.toLowerCase() ||
        /^\{\{(?:name|agentName)\}\}$/.test(speaker) ||
        (typeof character.name === 'string' &&
          speaker.toLowerCase() === character.name.toLowerCase());
      if (!isAgent) asked = text;
      else if (asked !== undefined) {
        exchanges.push([asked, text]);
        asked = undefined;
      }
    }
  }
  return exchanges;
}

/** The agent's line of the example whose user line is most like `text` (or, for a greeting, is one). */
function fromExamples(text: string, character: ModelCharacter, name: string): string | undefined {
  const said = words(text);
  const greeting = GREETING.test(text.trim());
  let best: { score: number; reply: string } | undefined;
  for (const [asked, reply] of exampleExchanges(character, name)) {
    const score =
      greeting && GREETING.test(asked.trim()) ? 1 : overlap(said, words(plain(asked, name)));
    if (score >= SAME_MESSAGE && (!best || score > best.score)) best = { score, reply };
  }
  return best && plain(best.reply, name);
}

/** Whether the offline note is among the agent's earlier turns. */
function toldAlready(messages: readonly ModelMessage[]): boolean {
  return messages.some(
    (message) => message.role === 'assistant' && message.content.includes(OFFLINE_NOTE),
  );
}

/**
 * The character's answer to the last user message, when it has one: an example exchange it matches, a
 * greeting, a question about who the agent is or what it can do (which says once what the offline model cannot
 * do). Undefined: the script answers.
 */
export function answerInVoice(
  messages: readonly ModelMessage[],
  character: ModelCharacter,
  name: string,
): ElizaReply | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'user') return undefined;
  const text = last.content.trim();
  if (text === '') return undefined;
  const example = fromExamples(text, character, name);
  if (example) {
    return {
      thought: 'I have said something like this before. Say it my way again.',
      text: example,
    };
  }
  if (CAPABILITY.test(text)) {
    const note = toldAlready(messages) ? '' : ` ${OFFLINE_NOTE}`;
    return {
      thought: 'They ask what I can do. Say who I am, and what I cannot do here.',
      text: `${introduction(character, name)}${note}`,
    };
  }
  if (IDENTITY.test(text)) {
    return { thought: 'They ask who I am. Tell them.', text: introduction(character, name) };
  }
  if (GREETING.test(text) && text.split(/\s+/).length <= 6) {
    const description = describeCharacter(character, name);
    return {
      thought: 'A greeting. Greet them back as myself.',
      text: `Hello! I'm ${name}${description ? `, ${description}` : ''}. What can I do for you?`,
    };
  }
  return undefined;
}

/**
 * A reply the script gave with nothing to key on, said instead with one of the character's `postExamples` (one
 * not said before in the conversation), when it has any.
 */
export function withPostExample(
  reply: ElizaReply,
  messages: readonly ModelMessage[],
  character: ModelCharacter,
  name: string,
): ElizaReply {
  if (reply.thought !== NO_KEYWORD_THOUGHT) return reply;
  const posts = characterLines(character.postExamples).map((line) => plain(line, name));
  if (posts.length === 0) return reply;
  const said = messages.filter((message) => message.role === 'assistant').map((m) => m.content);
  const seed = hashText(messages.at(-1)?.content ?? '') + said.length;
  for (let offset = 0; offset < posts.length; offset++) {
    const post = posts[(seed + offset) % posts.length]!;
    if (!said.some((earlier) => earlier.includes(post))) {
      return { thought: 'Nothing to key on. Say something I would say.', text: post };
    }
  }
  return reply;
}
