import { ParleyError, type RawMessage, type StoredMessage } from '@parley/core';
import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import { type StoredTraceContext, storableTraceContext } from '../tracing/trace-context';
import { BatchWriter } from './batch-writer';
import { ChannelActivity } from './channel-activity';
import { activityUpdate, withChannelWrites } from './channel-writes';
import { RecentMessagesCache } from './recent-messages-cache';
import type { NewMessage } from './new-message';
import type { DatabaseSchema } from './schema';
import {
  assertStorable,
  DEADLINE_MESSAGE,
  isDatabaseUnavailable,
  storageCall,
  toStorageError,
} from './to-storage-error';

export type { NewMessage } from './new-message';

/** A channel row. */
export interface ChannelRecord {
  id: string;
  serverId: string;
  agentId: string | null;
}

/** Options of a history query. */
export interface HistoryOptions {
  limit: number;
  /** Only messages created strictly before this instant, or stored before this message (by id). */
  before?: Date | { messageId: string };
  /** Only messages created strictly after this instant. */
  after?: Date;
}

/** PostgreSQL's unique_violation, from pg and PGlite alike. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

function toStored(message: NewMessage): StoredMessage {
  return {
    id: message.id,
    channel_id: message.channelId,
    server_id: message.serverId,
    author_id: message.authorId,
    author_name: message.authorName,
    content: message.content,
    source_type: message.sourceType,
    raw_message: message.rawMessage ?? null,
    metadata: message.metadata,
    in_reply_to: message.inReplyTo ?? null,
    created_at: message.createdAt.toISOString(),
  };
}

/** A message on its way to the database, with the trace context of what stored it (tracing on only). */
type StoredRow = { message: NewMessage; stored: StoredMessage; trace?: StoredTraceContext };

const MESSAGE_COLUMNS = [
  'id',
  'channel_id',
  'server_id',
  'author_id',
  'author_name',
  'content',
  'source_type',
  'raw_message',
  'metadata',
  'in_reply_to',
  'created_at',
] as const;

/** A stored message as the database returns it. */
function fromRow(
  row: Omit<StoredMessage, 'raw_message' | 'created_at'> & {
    raw_message: unknown;
    created_at: Date | string;
  },
): StoredMessage {
  return {
    ...row,
    raw_message: (row.raw_message ?? null) as RawMessage | null,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** How many channel ids the store remembers as existing. */
const KNOWN_CHANNELS_LIMIT = 50_000;
/** How many channels with an agent the store remembers. */
const CHANNEL_CACHE_LIMIT = 10_000;

/**
 * Channels and messages. Inserts are group-committed: a message is durable when `insert` resolves (the batch
 * is written and `sync` has run), and concurrent inserts share one round trip and one sync.
 */
export class MessageStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #sync: () => Promise<void>;
  /** Messages waiting for the next batch, each with the stored record `insert` answers with (built once). */
  readonly #writer: BatchWriter<StoredRow>;
  /** Channels known to exist, so a busy channel costs no upsert per message. Bounded; least used forgotten. */
  readonly #knownChannels = new LRUCache<string, true>({ max: KNOWN_CHANNELS_LIMIT });
  /**
   * Channels whose agent is set. A channel's agent is set by its first message (the insert keeps an existing
   * one), so these stay true whichever process wrote them: no query per message for them. Renaming the agent,
   * or deleting the channel, goes through the channels service, which has every process `forgetChannel` it.
   */
  readonly #channels = new LRUCache<string, ChannelRecord>({ max: CHANNEL_CACHE_LIMIT });

  readonly #recent: RecentMessagesCache | undefined;
  /** `channels.last_message_at`, written at most once per channel a second (not with every batch). */
  readonly #activity: ChannelActivity;

  /**
   * @param db the database.
   * @param options.sync makes the written batch durable (see `Database.sync`).
   * @param options.recentCache how many recent messages per channel to keep in memory (0: none). Only for a
   *   database this process alone writes, like the embedded one.
   * @param options.deadlineMs the longest an insert waits, queued behind other batches and written (see
   *   `Database.deadlineMs`); then it fails UNAVAILABLE. A batch the database cannot take fails all its inserts
   *   at once: they are not retried one by one, each waiting out the deadline again.
   */
  constructor(
    db: Kysely<DatabaseSchema>,
    options: {
      sync?: () => Promise<void>;
      recentCache?: number;
      deadlineMs?: number;
      /** Told when a held channel activity could not be written (the messages themselves are stored). */
      onActivityError?: (error: unknown) => void;
    } = {},
  ) {
    this.#db = db;
    this.#activity = new ChannelActivity({
      write: async (rows) => {
        await activityUpdate(rows).execute(db);
        await this.#sync();
      },
      onError: options.onActivityError ?? (() => {}),
      maxChannels: KNOWN_CHANNELS_LIMIT,
    });
    this.#sync = options.sync ?? (() => Promise.resolve());
    this.#recent = options.recentCache ? new RecentMessagesCache(options.recentCache) : undefined;
    this.#writer = new BatchWriter((batch) => this.#writeBatch(batch), 500, this.#sync, {
      deadlineMs: options.deadlineMs,
      deadlineError: () => new Error(DEADLINE_MESSAGE),
      failsAll: isDatabaseUnavailable,
    });
  }

  /** Stores a message (creating its channel on first use); resolves with the stored record once durable. */
  async insert(message: NewMessage): Promise<StoredMessage> {
    assertStorable({
      texts: {
        id: message.id,
        channelId: message.channelId,
        authorId: message.authorId,
        authorName: message.authorName,
        content: message.content,
        sourceType: message.sourceType,
      },
      json: { metadata: message.metadata, rawMessage: message.rawMessage },
      dates: { createdAt: message.createdAt },
    });
    const stored = toStored(message);
    try {
      // Only with tracing on: the webhook deliveries its trigger writes join the trace of what stored it.
      const trace = storableTraceContext();
      await this.#writer.write({ message, stored, ...(trace && { trace }) });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ParleyError('CONFLICT', `A message with id ${message.id} already exists`, {
          cause: error,
        });
      }
      throw toStorageError(error, 'message');
    }
    this.#recent?.add(stored);
    return stored;
  }

  /** The last `limit` messages of a channel, oldest first (from memory when the store keeps them). */
  async recent(channelId: string, limit: number): Promise<StoredMessage[]> {
    const load = async () => (await this.list(channelId, { limit })).reverse();
    if (!this.#recent || limit > this.#recent.capacity) return load();
    return this.#recent.recent(channelId, limit, () =>
      this.list(channelId, { limit: this.#recent!.capacity }).then((messages) =>
        messages.reverse(),
      ),
    );
  }

  /** A channel, if it exists. */
  async getChannel(channelId: string): Promise<ChannelRecord | undefined> {
    const cached = this.#channels.get(channelId);
    if (cached) return { ...cached };
    const row = await storageCall('channel', () =>
      this.#db
        .selectFrom('channels')
        .select(['id', 'server_id', 'agent_id'])
        .where('id', '=', channelId)
        .executeTakeFirst(),
    );
    if (!row) return undefined;
    const channel = { id: row.id, serverId: row.server_id, agentId: row.agent_id };
    if (channel.agentId !== null) this.#channels.set(channelId, { ...channel });
    return channel;
  }

  /**
   * Forgets what this process remembers of a channel (its existence, its agent, its recent messages): the
   * channel was deleted, cleared or changed, here or in another process.
   */
  forgetChannel(channelId: string): void {
    this.#knownChannels.delete(channelId);
    this.#activity.forget(channelId);
    this.#channels.delete(channelId);
    this.#recent?.forget(channelId);
  }

  /** A channel's messages, newest first. */
  async list(channelId: string, options: HistoryOptions): Promise<StoredMessage[]> {
    let query = this.#db
      .selectFrom('messages')
      .select(MESSAGE_COLUMNS)
      .where('channel_id', '=', channelId)
      .orderBy('created_at', 'desc')
      .orderBy('seq', 'desc')
      .limit(options.limit);
    const { before } = options;
    if (options.after) query = query.where('created_at', '>', options.after);
    if (before instanceof Date) query = query.where('created_at', '<', before);
    else if (before) {
      // Keyset paging on (created_at, seq), the order of the listing: messages that share a timestamp with the
      // cursor are neither skipped nor repeated.
      query = query.where(
        sql<boolean>`(created_at, seq) < (select created_at, seq from messages where id = ${before.messageId} and channel_id = ${channelId})`,
      );
    }
    const rows = await storageCall('history query', () => query.execute());
    return rows.map(fromRow);
  }

  /**
   * An author's messages of the given sources, newest first (an agent's replies: elizaOS's runs), optionally
   * in one channel and within `[from, to]`. Bounded by `limit`.
   */
  async listByAuthor(
    authorId: string,
    options: {
      limit: number;
      sources: readonly string[];
      channelId?: string;
      from?: Date;
      to?: Date;
    },
  ): Promise<StoredMessage[]> {
    let query = this.#db
      .selectFrom('messages')
      .select(MESSAGE_COLUMNS)
      .where('author_id', '=', authorId)
      .where('source_type', 'in', [...options.sources])
      .orderBy('created_at', 'desc')
      .orderBy('seq', 'desc')
      .limit(options.limit);
    if (options.channelId !== undefined) query = query.where('channel_id', '=', options.channelId);
    if (options.from) query = query.where('created_at', '>=', options.from);
    if (options.to) query = query.where('created_at', '<=', options.to);
    const rows = await storageCall('runs query', () => query.execute());
    return rows.map(fromRow);
  }

  /** The first stored message that answers `messageId` (its reply), if any. */
  async findReplyTo(messageId: string): Promise<StoredMessage | undefined> {
    const row = await storageCall('message', () =>
      this.#db
        .selectFrom('messages')
        .select(MESSAGE_COLUMNS)
        .where('in_reply_to', '=', messageId)
        .orderBy('seq')
        .limit(1)
        .executeTakeFirst(),
    );
    return row && fromRow(row);
  }

  /**
   * A message by id, if it exists. Given its channel, a message among the channel's recent ones held in memory
   * costs no query.
   */
  async get(messageId: string, channelId?: string): Promise<StoredMessage | undefined> {
    const held = channelId === undefined ? undefined : this.#recent?.find(channelId, messageId);
    if (held) return held;
    const row = await storageCall('message', () =>
      this.#db
        .selectFrom('messages')
        .select(MESSAGE_COLUMNS)
        .where('id', '=', messageId)
        .executeTakeFirst(),
    );
    return row && fromRow(row);
  }

  /**
   * Changes a stored message's text and metadata (a person edited their message); the stored record after the
   * change, or undefined when there is no such message. The channel's recent messages held in memory are
   * forgotten, so the next reply reads the new text.
   */
  async edit(
    messageId: string,
    change: { content: string; metadata: Record<string, unknown> },
  ): Promise<StoredMessage | undefined> {
    assertStorable({ texts: { content: change.content }, json: { metadata: change.metadata } });
    const row = await storageCall('message', () =>
      this.#db
        .updateTable('messages')
        .set({
          content: change.content,
          metadata: sql`${JSON.stringify(change.metadata)}::jsonb`,
        })
        .where('id', '=', messageId)
        .returning(MESSAGE_COLUMNS)
        .executeTakeFirst(),
    );
    if (!row) return undefined;
    await this.#sync();
    const stored = fromRow(row);
    this.#recent?.forget(stored.channel_id);
    return stored;
  }

  /** Resolves when every accepted insert is durable, and every channel's activity written. */
  async flushed(): Promise<void> {
    await this.#writer.idle();
    await this.#activity.settle();
  }

  /** Writes the channel activity held back from the write path, for a reader that orders by it. */
  settleActivity(): Promise<void> {
    return this.#activity.settle();
  }

  async #writeBatch(batch: StoredRow[]): Promise<void> {
    const newChannels = new Map<string, NewMessage>();
    for (const { message } of batch) {
      if (!this.#knownChannels.has(message.channelId)) newChannels.set(message.channelId, message);
    }
    // The stored shape, with the JSON columns as text and the time as a Date for the driver.
    const messages = batch.map(({ message, stored, trace }) => ({
      ...stored,
      raw_message: stored.raw_message === null ? null : JSON.stringify(stored.raw_message),
      metadata: JSON.stringify(stored.metadata),
      created_at: message.createdAt,
      ...(trace && { trace_context: JSON.stringify(trace) }),
    }));
    // One statement for channels and messages: each statement costs a database round trip.
    const statement = withChannelWrites(
      this.#db,
      [...newChannels.values()],
      batch.map(({ message }) => message),
      (latest) => this.#activity.due(latest),
    );
    await statement.insertInto('messages').values(messages).execute();
    for (const channelId of newChannels.keys()) {
      this.#knownChannels.set(channelId, true);
      this.#activity.written(channelId);
    }
  }
}
