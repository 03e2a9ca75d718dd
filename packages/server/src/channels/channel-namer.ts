import type { Channel, StoredMessage } from '@parley/core';
import type { Logger } from 'pino';
import type { AgentProfile } from '../agents/agent-profile';
import { BoundedWork } from '../memory/people/bounded-work';
import type { ModelProvider } from '../models/model-provider';
import { modelText } from '../models/stream-model';
import { LRUCache } from 'lru-cache';
import { NEW_CHANNEL_NAME } from './channel-store';

/** Longest channel name taken from a message or a model's summary: whole words up to it, then `…`. */
export const MAX_CHANNEL_NAME = 60;
/** Longest a naming call may take; then the first words name the channel. */
const NAMING_TIMEOUT_MS = 20_000;
/** Most characters read from the model's answer. */
const MAX_ANSWER = 400;

/** Channels remembered as named already, so that a reply in them costs no read. */
const SETTLED_CHANNELS = 10_000;

/** What the namer needs of the channels: a channel's name, and naming it (told to its room). */
export interface NamedChannels {
  /** The channel's name (null: none); undefined when there is no such channel. */
  nameOf(channelId: string): Promise<string | null | undefined>;
  nameNewChat(channelId: string, name: string): Promise<Channel | undefined>;
}

/**
 * A name from a message's first words: its first line, spaces folded, whole words up to
 * {@link MAX_CHANNEL_NAME} characters (`…` when words were left out). The same rule as the chat page's.
 */
export function nameFromFirstWords(text: string): string | undefined {
  const line = (text.split('\n').find((each) => each.trim() !== '') ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  if (line === '') return undefined;
  if (line.length <= MAX_CHANNEL_NAME) return line;
  const cut = line.slice(0, MAX_CHANNEL_NAME);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_CHANNEL_NAME / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}

/** The prompt that asks a model for a channel's name. */
export function namingPrompt(text: string): string {
  return [
    'Write a short title (at most six words) for a conversation that begins with the message below.',
    'Answer with the title alone: no quotes, no trailing punctuation, no explanation.',
    '',
    'Message:',
    text.slice(0, 2_000),
  ].join('\n');
}

const words = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length >= 3),
  );

/**
 * A model's answer as a channel name, or undefined when it is not one: its first line without quotes,
 * `Title:` or trailing dots, whole and bounded, and sharing at least one word with the message (an answer that
 * shares none is chat, not a summary of it).
 */
export function nameFromAnswer(answer: string, message: string): string | undefined {
  const line = (answer.split('\n').find((each) => each.trim() !== '') ?? '')
    .replace(/^\s*(title|name)\s*:\s*/i, '')
    .replace(/^["'\u201c\u201d\u2018\u2019*#\s]+|["'\u201c\u201d\u2018\u2019*\s.]+$/g, '')
    .trim();
  if (line === '' || line.length > MAX_CHANNEL_NAME * 2) return undefined;
  const said = words(message);
  if (![...words(line)].some((word) => said.has(word))) return undefined;
  return nameFromFirstWords(line);
}

/**
 * Names new chats after their first message: after a reply in a channel called `New chat` (what the chat page
 * names the channels it makes), one small model call summarises the message it answered (bounded in time and
 * answer, in the background, never on the reply's path; the offline model, or an answer that is no name, gives
 * the message's first words instead). The channel is renamed only while it is still `New chat`, and its room
 * hears `channelUpdated`. Channels found named otherwise are remembered (bounded), so later replies cost nothing.
 */
export class ChannelNamer {
  readonly #channels: () => NamedChannels;
  readonly #model: ModelProvider;
  readonly #logger: Logger;
  readonly #work: BoundedWork;
  readonly #stopping = new AbortController();
  readonly #settled = new LRUCache<string, true>({ max: SETTLED_CHANNELS });

  constructor(options: {
    channels: () => NamedChannels;
    model: ModelProvider;
    logger: Logger;
    maxConcurrent?: number;
    maxQueued?: number;
  }) {
    this.#channels = options.channels;
    this.#model = options.model;
    this.#logger = options.logger;
    this.#work = new BoundedWork({
      maxConcurrent: options.maxConcurrent ?? 2,
      maxQueued: options.maxQueued ?? 100,
      logger: options.logger,
      what: 'channel naming',
    });
  }

  /** After `reply` to `message` is stored: queues naming its channel, if nobody named it yet. */
  afterReply(agent: AgentProfile, message: StoredMessage, reply: StoredMessage): void {
    if (message.author_id === agent.agentId || reply.channel_id !== message.channel_id) return;
    if (message.content.trim() === '' || this.#settled.has(message.channel_id)) return;
    this.#work.add(message.channel_id, () => this.#name(agent, message));
  }

  /** Resolves once no naming runs or waits. */
  idle(): Promise<void> {
    return this.#work.idle();
  }

  /** Aborts the naming calls running (the server is stopping). */
  stop(): void {
    this.#stopping.abort();
  }

  async #name(agent: AgentProfile, message: StoredMessage): Promise<void> {
    const channelId = message.channel_id;
    const current = await this.#channels()
      .nameOf(channelId)
      .catch(() => undefined);
    if (current === undefined) return;
    this.#settled.set(channelId, true);
    if (current !== NEW_CHANNEL_NAME) return;
    const name =
      (this.#model.name === 'eliza' ? undefined : await this.#summary(agent, message)) ??
      nameFromFirstWords(message.content);
    if (!name) return;
    const renamed = await this.#channels().nameNewChat(channelId, name);
    if (renamed) this.#logger.debug({ channelId }, 'channel named after its first message');
  }

  /** The model's summary of the message as a name; undefined when it fails, times out or gives no name. */
  async #summary(agent: AgentProfile, message: StoredMessage): Promise<string | undefined> {
    const signal = AbortSignal.any([this.#stopping.signal, AbortSignal.timeout(NAMING_TIMEOUT_MS)]);
    try {
      const answer = await modelText(
        this.#model,
        {
          messages: [{ role: 'user', content: namingPrompt(message.content) }],
          agentName: agent.character.name,
          signal,
        },
        MAX_ANSWER,
        true,
      );
      return nameFromAnswer(answer, message.content);
    } catch (error) {
      this.#logger.debug(
        { err: error },
        'no summary for the channel name; its first words name it',
      );
      return undefined;
    }
  }
}
