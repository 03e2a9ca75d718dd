import {
  type AgentMessage,
  DEFAULT_SERVER_ID,
  type ChannelHistoryQuery as HistoryQuery,
  ParleyError,
  type StoredMessage,
  agentPostSchema,
  parseOrThrow,
  reservedUuid,
} from '@parley/core';
import type { AgentPostOptions, ControlOptions } from '@parley/plugin-sdk';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import type { AgentProfile } from '../agents/agent-profile';
import type { AgentRegistry } from '../agents/agent-registry';
import type { ModelProvider } from '../models/model-provider';
import type { MessageStore, NewMessage } from '../storage/message-store';
import type { ParleyMetrics } from '../metrics/create-metrics';
import { observeReply } from '../metrics/observe-reply';
import { deliverToRoom } from './deliver-to-room';
import type { ChannelSequencer } from './channel-sequencer';
import { KeyedQueue } from './keyed-queue';
import { produceModelReply, type ModelReplyContext } from './produce-model-reply';
import { type ReplyExtractor, createReplyExtractor } from './reply-extractor';
import { toReplyError } from './reply-failure';
import { ReplyStream } from './reply-stream';
import type { RoomBroadcaster } from './room-broadcaster';
import { toBroadcast } from './to-broadcast';

/** A user message entering a channel through REST or the socket. */
export interface UserMessageInput {
  channelId: string;
  serverId?: string;
  text: string;
  entityId: string;
  senderName?: string;
  source: string;
  metadata?: Record<string, unknown>;
  /** Client-chosen id (socket clients use it to match their own broadcast). */
  messageId?: string;
  /** The agent that should answer; default: the channel's agent, else the default agent. */
  agentId?: string;
  /**
   * `messageId` was derived from an idempotency key: a message already stored under it with the same channel,
   * author and text is this request again, not a conflict.
   */
  idempotent?: boolean;
}

/** A user message as posted: stored now, or found stored by an earlier try of the same idempotent request. */
export interface PostedUserMessage {
  message: StoredMessage;
  agent: AgentProfile;
  /** True when the message was already stored by an earlier try. */
  replayed: boolean;
}

/** How much reply work the server takes on before it says no. */
export interface ReplyLimits {
  /** Model calls running at once, over all channels (default 32); more wait their turn. */
  maxConcurrentModelCalls: number;
  /** Replies waiting or running in one channel (default 16); more are refused with RATE_LIMITED (429). */
  maxQueuedPerChannel: number;
  /** Replies waiting or running in all (default 1000); more are refused with UNAVAILABLE (503). */
  maxQueuedTotal: number;
}

/** What the messaging service needs. */
export interface MessagingServiceOptions {
  store: MessageStore;
  agents: AgentRegistry;
  model: ModelProvider;
  logger: Logger;
  /** Where stored messages and every reply's parts go to the clients of a room. */
  broadcaster: RoomBroadcaster;
  limits?: Partial<ReplyLimits>;
  /** How many earlier messages of the channel the model sees (default 20). */
  historyLimit?: number;
  /** Extractor for each reply (default: {@link createReplyExtractor}). */
  createExtractor?: () => ReplyExtractor;
  /**
   * Whether this process may remember which agent answers in a channel. Only when no other process writes the
   * database (the embedded one): another process could change it.
   */
  cacheChannelAgents?: boolean;
  /**
   * Orders replies per channel (default: an in-process queue). Processes sharing a database pass one sequencer
   * on it, so that a channel's replies keep one order whichever process received its messages.
   */
  sequencer?: ChannelSequencer;
  /** How long a finished reply stays resumable from memory (default 10 s); stored replies resume from storage. */
  replyLingerMs?: number;
  /** Counts each reply (a consumer of its parts like the room). */
  metrics?: ParleyMetrics;
}

const CHANNEL_AGENT_CACHE_SIZE = 10_000;

export const DEFAULT_REPLY_LIMITS: ReplyLimits = {
  maxConcurrentModelCalls: 32,
  maxQueuedPerChannel: 16,
  maxQueuedTotal: 1000,
};

/**
 * Messages into channels and agent replies out of them, free of HTTP and socket types. Every reply, whatever
 * started it, is one {@link ReplyStream} of parts; the room receives each through {@link deliverToRoom}, and
 * HTTP consumers (SSE, `sync`) subscribe to the same stream. Replies in one channel are produced in order,
 * channels in parallel, with a bound on model calls and on waiting replies.
 */
export class MessagingService {
  readonly #options: MessagingServiceOptions;
  readonly #limits: ReplyLimits;
  readonly #queue: ChannelSequencer;
  readonly #modelCalls: LimitFunction;
  readonly #channelAgents = new Map<string, string>();
  readonly #replies = new Map<string, ReplyStream>();
  /** The same replies by the message they answer, for idempotent retries. */
  readonly #repliesTo = new Map<string, ReplyStream>();
  readonly #pendingByChannel = new Map<string, number>();
  #pending = 0;
  readonly #stopping = new AbortController();
  readonly #replyContext: ModelReplyContext;

  constructor(options: MessagingServiceOptions) {
    this.#options = options;
    this.#queue = options.sequencer ?? new KeyedQueue();
    this.#limits = { ...DEFAULT_REPLY_LIMITS, ...options.limits };
    this.#modelCalls = pLimit(this.#limits.maxConcurrentModelCalls);
    this.#replyContext = {
      store: options.store,
      model: options.model,
      logger: options.logger,
      historyLimit: options.historyLimit ?? 20,
      createExtractor: options.createExtractor ?? createReplyExtractor,
      signal: this.#stopping.signal,
    };
  }

  /**
   * Stores and broadcasts a message posted through `POST /api/messaging/submit`. No agent is asked to reply.
   * With `idempotentId`, a message already stored under that id with the same content is returned as it is.
   */
  async submit(
    input: AgentMessage,
    idempotentId?: string,
  ): Promise<{ message: StoredMessage; replayed: boolean }> {
    const author = this.#options.agents.find(input.author_id);
    const stored = await this.#storeOnce(
      {
        id: idempotentId ?? reservedUuid(),
        channelId: input.channel_id,
        serverId: input.server_id,
        authorId: input.author_id,
        authorName: input.metadata.agentName ?? author?.character.name ?? input.author_id,
        content: input.content,
        sourceType: input.source_type,
        rawMessage: input.raw_message ?? null,
        metadata: input.metadata,
        inReplyTo: input.in_reply_to ?? null,
        createdAt: new Date(),
        channelAgentId: author?.agentId ?? null,
      },
      idempotentId !== undefined,
    );
    return stored;
  }

  /**
   * Posts a message as an agent (plugins, scheduled messages): validated (BAD_REQUEST naming the field),
   * stored, then delivered to the room as a reply of one text delta. An explicit `id` makes the post
   * idempotent: a second post with the same id fails with CONFLICT, and the room sees nothing of it.
   */
  async postAgentMessage(
    agent: AgentProfile,
    input: AgentPostOptions,
    options: { id?: string; sourceType?: string } = {},
  ): Promise<StoredMessage> {
    const post = parseOrThrow(agentPostSchema, input, 'message');
    const name = agent.character.name;
    const message = await this.#options.store.insert({
      id: options.id ?? post.id ?? reservedUuid(),
      channelId: post.channelId,
      serverId: post.serverId ?? DEFAULT_SERVER_ID,
      authorId: agent.agentId,
      authorName: name,
      content: post.text,
      sourceType: options.sourceType ?? 'agent_response',
      rawMessage: { text: post.text, thought: post.thought, actions: post.actions ?? ['REPLY'] },
      metadata: { ...post.metadata, agent_id: agent.agentId, agentName: name },
      inReplyTo: post.inReplyTo ?? null,
      createdAt: new Date(),
      channelAgentId: agent.agentId,
    });
    const stream = this.#open(message.id, message.channel_id, message.in_reply_to);
    const { replyId } = stream;
    stream.write({
      type: 'reply-start',
      replyId,
      channelId: message.channel_id,
      agentId: agent.agentId,
      agentName: name,
      inReplyTo: message.in_reply_to,
    });
    stream.write({ type: 'text-delta', replyId, delta: message.content, index: 0 });
    const { text, thought, actions = ['REPLY'] } = message.raw_message ?? {};
    stream.write({
      type: 'reply-end',
      replyId,
      message,
      text: text ?? message.content,
      actions,
      thought,
    });
    return message;
  }

  /** Tells the clients of a room to enable or disable their input. */
  sendControl(input: ControlOptions): void {
    const { channelId, action, target } = input;
    this.#options.broadcaster.emit(channelId, 'controlMessage', {
      action,
      ...(target === undefined ? {} : { target }),
      roomId: channelId,
      channelId,
    });
  }

  /** The agent that answers in a channel: the one asked for, else the channel's, else the default. */
  async resolveAgent(channelId: string, agentId?: string): Promise<AgentProfile> {
    const { agents, store } = this.#options;
    if (agentId) return agents.get(agentId);
    let channelAgentId = this.#channelAgents.get(channelId);
    if (channelAgentId === undefined) {
      channelAgentId = (await store.getChannel(channelId))?.agentId ?? '';
      this.#rememberChannelAgent(channelId, channelAgentId);
    }
    return (channelAgentId && agents.find(channelAgentId)) || agents.defaultAgent;
  }

  /**
   * Stores and broadcasts a user's message; returns it with the agent that will answer. Refused before
   * anything is stored when the channel (RATE_LIMITED) or the server (UNAVAILABLE) has too many replies waiting.
   */
  async postUserMessage(input: UserMessageInput): Promise<PostedUserMessage> {
    this.#admit(input.channelId);
    const agent = await this.resolveAgent(input.channelId, input.agentId);
    const { message, replayed } = await this.#storeOnce(
      {
        id: input.messageId ?? reservedUuid(),
        channelId: input.channelId,
        serverId: input.serverId ?? DEFAULT_SERVER_ID,
        authorId: input.entityId,
        authorName: input.senderName ?? input.entityId,
        content: input.text,
        sourceType: input.source,
        metadata: input.metadata ?? {},
        createdAt: new Date(),
        channelAgentId: agent.agentId,
      },
      input.idempotent === true,
    );
    this.#rememberChannelAgent(input.channelId, agent.agentId);
    return { message, agent, replayed };
  }

  /**
   * The reply to a message posted again by an idempotent retry: the one running or kept in memory, else the
   * stored one (as a finished stream the room does not receive again), else a new reply, when the process that
   * took the first try died before answering.
   */
  async replyOnce(agent: AgentProfile, userMessage: StoredMessage): Promise<ReplyStream> {
    const running = this.#repliesTo.get(userMessage.id);
    if (running) return running;
    const stored = await this.#options.store.findReplyTo(userMessage.id);
    if (stored) return ReplyStream.ofStored(stored, agent);
    return this.reply(agent, userMessage);
  }

  /**
   * Has `agent` answer `userMessage`, queued behind earlier replies of the channel. Returns the reply's stream
   * at once; the room already receives it, and callers subscribe for their own delivery.
   */
  reply(agent: AgentProfile, userMessage: StoredMessage): ReplyStream {
    const channelId = userMessage.channel_id;
    const stream = this.#open(reservedUuid(), channelId, userMessage.id);
    this.#repliesTo.set(userMessage.id, stream);
    this.#count(channelId, 1);
    void this.#queue
      .run(channelId, () =>
        this.#modelCalls(() => produceModelReply(this.#replyContext, stream, agent, userMessage)),
      )
      // The producer never rejects; the channel's sequencer can (its database gone): the reply still ends.
      .catch((error: unknown) =>
        stream.write(
          toReplyError(error, stream.replyId, this.#options.logger, {
            channelId,
            messageId: userMessage.id,
          }),
        ),
      )
      .finally(() => this.#count(channelId, -1));
    return stream;
  }

  /** A reply still in memory (running, or finished within the linger time), for resuming. */
  findReply(replyId: string): ReplyStream | undefined {
    return this.#replies.get(replyId);
  }

  /** A stored message by id, if any (a finished reply resumes from it). */
  findMessage(messageId: string): Promise<StoredMessage | undefined> {
    return this.#options.store.get(messageId);
  }

  /** A channel's stored messages, newest first. */
  history(channelId: string, query: HistoryQuery): Promise<StoredMessage[]> {
    return this.#options.store.list(channelId, {
      limit: query.limit,
      before: toHistoryCursor(query.before),
    });
  }

  /** Replies waiting or running, in all. */
  get pendingReplies(): number {
    return this.#pending;
  }

  /** Ends every reply still running with an error part (the server is stopping). */
  abortReplies(): void {
    this.#stopping.abort(new ParleyError('UNAVAILABLE', 'The server is stopping'));
  }

  /** A new reply stream: delivered to the room, and resumable while it runs and shortly after. */
  #open(replyId: string, channelId: string, inReplyTo: string | null): ReplyStream {
    const stream = new ReplyStream(replyId, channelId, inReplyTo);
    deliverToRoom(stream, this.#options.broadcaster);
    if (this.#options.metrics) observeReply(stream, this.#options.metrics);
    this.#replies.set(replyId, stream);
    void stream.ended.then(() => {
      const timer = setTimeout(() => {
        this.#replies.delete(replyId);
        if (inReplyTo !== null && this.#repliesTo.get(inReplyTo) === stream) {
          this.#repliesTo.delete(inReplyTo);
        }
      }, this.#options.replyLingerMs ?? 10_000);
      timer.unref();
    });
    return stream;
  }

  #admit(channelId: string) {
    if (this.#pending >= this.#limits.maxQueuedTotal) {
      throw new ParleyError(
        'UNAVAILABLE',
        'The server has too many replies in progress; retry later',
        {
          details: { retryAfterSeconds: 5 },
        },
      );
    }
    if ((this.#pendingByChannel.get(channelId) ?? 0) >= this.#limits.maxQueuedPerChannel) {
      throw new ParleyError(
        'RATE_LIMITED',
        `This channel already has ${this.#limits.maxQueuedPerChannel} messages waiting for a reply; retry later`,
        { details: { retryAfterSeconds: 2 } },
      );
    }
  }

  #count(channelId: string, delta: 1 | -1) {
    this.#pending += delta;
    const count = (this.#pendingByChannel.get(channelId) ?? 0) + delta;
    if (count === 0) this.#pendingByChannel.delete(channelId);
    else this.#pendingByChannel.set(channelId, count);
  }

  /**
   * Stores and broadcasts a message. When `idempotent`, a message already stored under its id is the same request
   * again if it has the same channel, author and text (it is returned, not broadcast again); anything else under
   * that id is a CONFLICT.
   */
  async #storeOnce(
    message: NewMessage,
    idempotent = false,
  ): Promise<{ message: StoredMessage; replayed: boolean }> {
    try {
      const stored = await this.#options.store.insert(message);
      this.#options.broadcaster.emit(stored.channel_id, 'messageBroadcast', toBroadcast(stored));
      return { message: stored, replayed: false };
    } catch (error) {
      if (!idempotent || !ParleyError.isInstance(error) || error.code !== 'CONFLICT') throw error;
      const existing = await this.#options.store.get(message.id);
      const same =
        existing?.channel_id === message.channelId &&
        existing.author_id === message.authorId &&
        existing.content === message.content;
      if (!existing || !same) {
        throw new ParleyError(
          'CONFLICT',
          'This Idempotency-Key was already used for a different request',
          { cause: error },
        );
      }
      return { message: existing, replayed: true };
    }
  }

  #rememberChannelAgent(channelId: string, agentId: string) {
    if (!this.#options.cacheChannelAgents) return;
    if (this.#channelAgents.size >= CHANNEL_AGENT_CACHE_SIZE) {
      const oldest = this.#channelAgents.keys().next().value;
      if (oldest !== undefined) this.#channelAgents.delete(oldest);
    }
    this.#channelAgents.set(channelId, agentId);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A history `before`: a message id (the exact cursor) or an instant. */
function toHistoryCursor(before: string | undefined): Date | { messageId: string } | undefined {
  if (before === undefined) return undefined;
  return UUID.test(before) ? { messageId: before } : new Date(before);
}
