import { randomUUID } from 'node:crypto';
import {
  type AgentMessage,
  DEFAULT_SERVER_ID,
  type ChannelHistoryQuery as HistoryQuery,
  type StoredMessage,
} from '@parley/core';
import type { AgentPostOptions, ControlOptions } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/agent-registry';
import type { ParleyAgentRuntime } from '../agents/agent-runtime';
import type { ModelProvider } from '../models/model-provider';
import type { MessageStore, NewMessage } from '../storage/message-store';
import { buildPrompt } from './build-prompt';
import { ChunkCoalescer } from './chunk-coalescer';
import { KeyedQueue } from './keyed-queue';
import { type ReplyExtractor, createReplyExtractor } from './reply-extractor';
import { type RoomBroadcaster, silentBroadcaster } from './room-broadcaster';
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
}

/** An agent's finished reply. */
export interface AgentReply {
  /** The stored reply, or null when the agent chose not to reply. */
  message: StoredMessage | null;
  text: string;
  actions: string[];
  thought: string | undefined;
}

/** Options of a reply. */
export interface ReplyOptions {
  signal?: AbortSignal;
  /** Called with each piece of reply text as it is extracted, `index` from 0. */
  onChunk?: (chunk: string, index: number, messageId: string) => void;
}

/** What the messaging service needs. */
export interface MessagingServiceOptions {
  store: MessageStore;
  agents: AgentRegistry;
  model: ModelProvider;
  logger: Logger;
  /** How many earlier messages of the channel the model sees (default 20). */
  historyLimit?: number;
  /** Extractor for each reply (default: the action-aware ResponseStreamExtractor). */
  createExtractor?: () => ReplyExtractor;
}

const CHANNEL_AGENT_CACHE_SIZE = 10_000;

/**
 * Messages into channels and agent replies out of them, free of HTTP and socket types. Every stored message
 * is broadcast to its room through the one {@link RoomBroadcaster}; replies in one channel are produced in
 * order, channels in parallel.
 */
export class MessagingService {
  broadcaster: RoomBroadcaster = silentBroadcaster;
  readonly #options: MessagingServiceOptions;
  readonly #queue = new KeyedQueue();
  readonly #channelAgents = new Map<string, string>();

  constructor(options: MessagingServiceOptions) {
    this.#options = options;
  }

  /** Stores and broadcasts a message posted through `POST /api/messaging/submit`. No agent is asked to reply. */
  submit(input: AgentMessage): Promise<StoredMessage> {
    const author = this.#options.agents.find(input.author_id);
    return this.#store({
      id: randomUUID(),
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
    });
  }

  /**
   * Stores and broadcasts a message authored by an agent (plugins, scheduled messages). An explicit `id` makes
   * the post idempotent: a second post with the same id fails with CONFLICT instead of duplicating.
   */
  postAgentMessage(
    agent: ParleyAgentRuntime,
    input: AgentPostOptions & { id?: string; sourceType?: string },
  ): Promise<StoredMessage> {
    const name = agent.character.name;
    return this.#store({
      id: input.id ?? randomUUID(),
      channelId: input.channelId,
      serverId: input.serverId ?? DEFAULT_SERVER_ID,
      authorId: agent.agentId,
      authorName: name,
      content: input.text,
      sourceType: input.sourceType ?? 'agent_response',
      rawMessage: { text: input.text, thought: input.thought, actions: input.actions ?? ['REPLY'] },
      metadata: { ...input.metadata, agent_id: agent.agentId, agentName: name },
      inReplyTo: input.inReplyTo ?? null,
      createdAt: new Date(),
      channelAgentId: agent.agentId,
    });
  }

  /** Tells the clients of a room to enable or disable their input. */
  sendControl(input: ControlOptions): void {
    const { channelId, action, target } = input;
    this.broadcaster.emit(channelId, 'controlMessage', {
      action,
      ...(target === undefined ? {} : { target }),
      roomId: channelId,
      channelId,
    });
  }

  async #store(message: NewMessage): Promise<StoredMessage> {
    const stored = await this.#options.store.insert(message);
    this.broadcaster.emit(stored.channel_id, 'messageBroadcast', toBroadcast(stored));
    return stored;
  }

  /** The agent that answers in a channel: the one asked for, else the channel's, else the default. */
  async resolveAgent(channelId: string, agentId?: string): Promise<ParleyAgentRuntime> {
    const { agents, store } = this.#options;
    if (agentId) return agents.get(agentId);
    let channelAgentId = this.#channelAgents.get(channelId);
    if (channelAgentId === undefined) {
      channelAgentId = (await store.getChannel(channelId))?.agentId ?? '';
      this.#rememberChannelAgent(channelId, channelAgentId);
    }
    return (channelAgentId && agents.find(channelAgentId)) || agents.defaultAgent;
  }

  /** Stores and broadcasts a user's message; returns it with the agent that will answer. */
  async postUserMessage(
    input: UserMessageInput,
  ): Promise<{ message: StoredMessage; agent: ParleyAgentRuntime }> {
    const agent = await this.resolveAgent(input.channelId, input.agentId);
    const message = await this.#store({
      id: input.messageId ?? randomUUID(),
      channelId: input.channelId,
      serverId: input.serverId ?? DEFAULT_SERVER_ID,
      authorId: input.entityId,
      authorName: input.senderName ?? input.entityId,
      content: input.text,
      sourceType: input.source,
      metadata: input.metadata ?? {},
      createdAt: new Date(),
      channelAgentId: agent.agentId,
    });
    this.#rememberChannelAgent(input.channelId, agent.agentId);
    return { message, agent };
  }

  /**
   * Has `agent` answer `userMessage`: queued behind earlier replies of the channel, streamed through the
   * extractor (each piece broadcast live as `messageStreamChunk`), stored and broadcast. `messageComplete`
   * follows, reply or not. Model failures reject with the model's ParleyError.
   */
  reply(
    agent: ParleyAgentRuntime,
    userMessage: StoredMessage,
    options: ReplyOptions = {},
  ): Promise<AgentReply> {
    const channelId = userMessage.channel_id;
    return this.#queue.run(channelId, async () => {
      try {
        return await this.#produceReply(agent, userMessage, options);
      } finally {
        this.broadcaster.emit(channelId, 'messageComplete', {
          messageId: userMessage.id,
          roomId: channelId,
          channelId,
        });
      }
    });
  }

  /** A channel's stored messages, newest first. */
  history(channelId: string, query: HistoryQuery): Promise<StoredMessage[]> {
    return this.#options.store.list(channelId, {
      limit: query.limit,
      before: query.before ? new Date(query.before) : undefined,
    });
  }

  async #produceReply(
    agent: ParleyAgentRuntime,
    userMessage: StoredMessage,
    { signal, onChunk }: ReplyOptions,
  ): Promise<AgentReply> {
    const {
      store,
      model,
      historyLimit = 20,
      createExtractor = createReplyExtractor,
    } = this.#options;
    const channelId = userMessage.channel_id;
    const recent = await store.recent(channelId, historyLimit);
    // The message being answered goes last, even when later messages arrived meanwhile.
    const history = recent.filter((message) => message.id !== userMessage.id);
    history.push(userMessage);
    signal?.throwIfAborted();
    const replyId = randomUUID();
    const extractor = createExtractor();
    let index = 0;
    const chunks = new ChunkCoalescer((chunk) => {
      onChunk?.(chunk, index, replyId);
      this.broadcaster.emit(channelId, 'messageStreamChunk', {
        messageId: replyId,
        chunk,
        index,
        roomId: channelId,
        channelId,
      });
      index += 1;
    });

    const stream = model.stream({
      messages: buildPrompt(agent.character, agent.agentId, history),
      signal,
      agentName: agent.character.name,
    });
    try {
      for await (const piece of stream) chunks.push(extractor.push(piece));
      chunks.push(extractor.flush());
    } finally {
      // Every chunk goes out before the stored reply is broadcast (or the failure reported).
      chunks.flush();
    }

    const { text, actions, thought } = extractor.result();
    if (text.trim() === '' || !actions.includes('REPLY')) {
      return { message: null, text, actions, thought };
    }
    const message = await this.#store({
      id: replyId,
      channelId,
      serverId: userMessage.server_id,
      authorId: agent.agentId,
      authorName: agent.character.name,
      content: text,
      sourceType: 'agent_response',
      rawMessage: thought === undefined ? { text, actions } : { text, thought, actions },
      metadata: { agent_id: agent.agentId, agentName: agent.character.name },
      inReplyTo: userMessage.id,
      createdAt: new Date(),
    });
    return { message, text, actions, thought };
  }

  #rememberChannelAgent(channelId: string, agentId: string) {
    if (this.#channelAgents.size >= CHANNEL_AGENT_CACHE_SIZE) {
      const oldest = this.#channelAgents.keys().next().value;
      if (oldest !== undefined) this.#channelAgents.delete(oldest);
    }
    this.#channelAgents.set(channelId, agentId);
  }
}
