import {
  type Channel,
  type ChannelParticipant,
  DEFAULT_SERVER_ID,
  MAX_CHANNEL_PARTICIPANTS,
  ParleyError,
  type createChannelRequestSchema,
  type updateChannelRequestSchema,
} from '@parley/core';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Database } from '../storage/create-database';
import type { ChannelEvents } from './channel-events';
import { type ChannelPageQuery, ChannelStore } from './channel-store';
import { dmChannelId } from './eliza-shapes';
import { ParticipantStore, type ParticipantRole } from './participant-store';

/** Options of {@link ChannelService}. */
export interface ChannelServiceOptions {
  database: Pick<Database, 'db' | 'sync'>;
  events: ChannelEvents;
  /** Cancels the channel's running replies, in this process and the others; how many. */
  interrupt: (channelId: string) => Promise<number>;
  /** Whether an agent with this id is served. */
  isAgent: (agentId: string) => boolean;
  logger: Logger;
  /** Writes the channel activity held back from the write path before a read shows it (the message store's). */
  settleActivity?: () => Promise<void>;
  /** Told as soon as a channel's row is deleted, to forget what the process remembers of it (its members). */
  onChannelDeleted?: (channelId: string) => void;
  /**
   * Told after messages were removed (a channel deleted, its history cleared, a message deleted), so the chains
   * of receipts get their tombstones. Must not reject.
   */
  onRemoved?: (removal: {
    channelId: string;
    reason: 'message-deleted' | 'history-cleared' | 'channel-deleted';
    messageId?: string;
    removedBy: string | null;
  }) => Promise<void>;
}

/** Who removes messages through the API: the holder of the server's API key (Parley knows no other identity). */
const REMOVED_BY_API = 'api';

type CreateInput = z.output<typeof createChannelRequestSchema>;
type UpdateInput = z.output<typeof updateChannelRequestSchema>;

function requireDefaultServer(serverId: string | undefined): void {
  if (serverId !== undefined && serverId !== DEFAULT_SERVER_ID) {
    throw new ParleyError(
      'NOT_FOUND',
      `No message server ${serverId}: this server has one, ${DEFAULT_SERVER_ID}`,
    );
  }
}

/**
 * Channels as a resource: create, list, read, change and delete them, their participants, and their history
 * cleared or a message deleted. Every change is told to sockets in every process (`channelCreated`,
 * `channelUpdated`, `channelDeleted` to all; `messageDeleted`, `channelCleared` to the channel's room) and makes
 * every process forget what it cached of the channel.
 */
export class ChannelService {
  readonly channels: ChannelStore;
  readonly participants: ParticipantStore;
  readonly #options: ChannelServiceOptions;

  constructor(options: ChannelServiceOptions) {
    this.#options = options;
    const sync = () => options.database.sync();
    this.channels = new ChannelStore(options.database.db, sync, options.settleActivity);
    this.participants = new ParticipantStore(options.database.db, sync);
  }

  /** Creates a channel; CONFLICT for a taken id, NOT_FOUND for an unknown agent or message server. */
  async create(input: CreateInput): Promise<Channel> {
    requireDefaultServer(input.message_server_id ?? input.messageServerId ?? input.serverId);
    if (input.agentId !== undefined) this.#requireAgent(input.agentId);
    const roles = new Map<string, ParticipantRole>();
    for (const id of [...(input.participants ?? []), ...(input.participantCentralUserIds ?? [])]) {
      roles.set(id, 'member');
    }
    if (input.agentId !== undefined) roles.set(input.agentId, 'agent');
    if (roles.size > MAX_CHANNEL_PARTICIPANTS) {
      throw new ParleyError(
        'BAD_REQUEST',
        `A channel holds at most ${MAX_CHANNEL_PARTICIPANTS} participants, agents included`,
      );
    }
    const channel = await this.channels.create({
      id: input.id ?? randomUUID(),
      name: input.name,
      type: input.type,
      agentId: input.agentId ?? null,
      topic: input.topic ?? null,
      metadata: input.metadata ?? {},
      participants: [...roles].map(([id, role]) => ({ id, role })),
      createdAt: new Date(),
    });
    this.#options.events.forget(channel.id);
    this.#options.events.toEveryone('channelCreated', channel);
    return channel;
  }

  /** A page of channels, newest activity first. */
  list(query: ChannelPageQuery) {
    return this.channels.page(query);
  }

  /** A channel, or NOT_FOUND. */
  get(channelId: string): Promise<Channel> {
    return this.channels.require(channelId);
  }

  /** A channel's name (null: none); undefined when there is no such channel. */
  nameOf(channelId: string): Promise<string | null | undefined> {
    return this.channels.nameOf(channelId);
  }

  /** Changes a channel; NOT_FOUND for an unknown channel or agent. */
  async update(channelId: string, input: UpdateInput): Promise<Channel> {
    if (input.agentId) this.#requireAgent(input.agentId);
    if (input.participantCentralUserIds !== undefined) {
      await this.participants.replaceMembers(channelId, input.participantCentralUserIds);
    }
    const channel = await this.channels.update(channelId, {
      name: input.name,
      topic: input.topic,
      metadata: input.metadata,
      agentId: input.agentId,
    });
    if (!channel) throw new ParleyError('NOT_FOUND', `No channel ${channelId}`);
    if (input.agentId !== undefined) this.#options.events.forget(channelId);
    this.#options.events.toEveryone('channelUpdated', channel);
    return channel;
  }

  /**
   * Names a channel still called `New chat` (the channel namer, after its first reply); the channel's room
   * hears `channelUpdated` (only those in the conversation learn what it is about). Undefined, and nothing
   * told, when it has another name already.
   */
  async nameNewChat(channelId: string, name: string): Promise<Channel | undefined> {
    const channel = await this.channels.nameNewChat(channelId, name);
    if (channel) this.#options.events.toRoom(channelId, 'channelUpdated', channel);
    return channel;
  }

  /**
   * Deletes a channel: its running replies are cancelled first, then its messages go in bounded batches, then
   * the channel itself (a failure half-way leaves the channel, so that deleting it again finishes the job),
   * then any message stored meanwhile. Every socket hears `channelDeleted`.
   */
  async delete(channelId: string): Promise<{ success: true; deleted: true; messages: number }> {
    await this.channels.require(channelId);
    const interrupted = await this.#options.interrupt(channelId);
    let messages = await this.channels.deleteMessages(channelId);
    await this.channels.deleteRow(channelId);
    this.#options.onChannelDeleted?.(channelId);
    this.#options.events.forget(channelId);
    // Messages a process stored before it forgot the channel.
    messages += await this.channels.deleteMessages(channelId, 10);
    await this.#options.onRemoved?.({
      channelId,
      reason: 'channel-deleted',
      removedBy: REMOVED_BY_API,
    });
    this.#options.events.toEveryone('channelDeleted', { channelId });
    this.#options.logger.info({ channelId, messages, interrupted }, 'channel deleted');
    return { success: true, deleted: true, messages };
  }

  /** Deletes every message of a channel (in bounded batches); the room hears `channelCleared`. */
  async clear(channelId: string): Promise<{ success: true; deleted: number }> {
    await this.channels.require(channelId);
    const deleted = await this.channels.deleteMessages(channelId);
    await this.channels.clearActivity(channelId);
    await this.#options.onRemoved?.({
      channelId,
      reason: 'history-cleared',
      removedBy: REMOVED_BY_API,
    });
    this.#options.events.forget(channelId);
    this.#options.events.toRoom(channelId, 'channelCleared', { channelId });
    return { success: true, deleted };
  }

  /** Deletes one message; NOT_FOUND for an unknown channel or message. The room hears `messageDeleted`. */
  async deleteMessage(
    channelId: string,
    messageId: string,
  ): Promise<{ success: true; deleted: true }> {
    await this.channels.require(channelId);
    if (!(await this.channels.deleteMessage(channelId, messageId))) {
      throw new ParleyError('NOT_FOUND', `No message ${messageId} in channel ${channelId}`);
    }
    await this.#options.onRemoved?.({
      channelId,
      reason: 'message-deleted',
      messageId,
      removedBy: REMOVED_BY_API,
    });
    this.#options.events.forget(channelId);
    this.#options.events.toRoom(channelId, 'messageDeleted', { channelId, messageId });
    return { success: true, deleted: true };
  }

  /** Who is in a channel; NOT_FOUND for an unknown channel. */
  async listParticipants(channelId: string): Promise<ChannelParticipant[]> {
    await this.channels.require(channelId);
    return this.participants.list(channelId);
  }

  /** Adds a person; `changed: false` when already in. */
  async addParticipant(channelId: string, participantId: string) {
    const changed = await this.participants.add(channelId, participantId, 'member');
    return { success: true as const, channelId, participantId, changed };
  }

  /** Removes a person or agent; NOT_FOUND when not in the channel. */
  async removeParticipant(channelId: string, participantId: string, role?: ParticipantRole) {
    if (!(await this.participants.remove(channelId, participantId, role))) {
      throw new ParleyError('NOT_FOUND', `${participantId} is not in channel ${channelId}`);
    }
    return { success: true as const, channelId, participantId, changed: true };
  }

  /**
   * An agent joins: it becomes a participant, and the channel's answering agent when the channel had none.
   * NOT_FOUND for an unknown channel or agent.
   */
  async addAgent(channelId: string, agentId: string) {
    this.#requireAgent(agentId);
    const changed = await this.participants.add(channelId, agentId, 'agent');
    const channel = await this.channels.require(channelId);
    if (channel.agentId === null) await this.update(channelId, { agentId });
    return { success: true as const, channelId, participantId: agentId, changed };
  }

  /** An agent leaves; when it answered in the channel, the default agent does from now on. */
  async removeAgent(channelId: string, agentId: string) {
    const channel = await this.channels.require(channelId);
    const removed = await this.participants.remove(channelId, agentId, 'agent');
    if (channel.agentId === agentId) await this.update(channelId, { agentId: null });
    else if (!removed) {
      throw new ParleyError('NOT_FOUND', `Agent ${agentId} is not in channel ${channelId}`);
    }
    return { success: true as const, channelId, participantId: agentId, changed: true };
  }

  /**
   * The DM channel of two participants, created on first ask (elizaOS's `GET /dm-channel`): the same channel
   * whichever of them asks, in whichever process.
   */
  async dmChannel(
    currentUserId: string,
    targetUserId: string,
    dmServerId: string,
  ): Promise<Channel> {
    requireDefaultServer(dmServerId);
    if (currentUserId === targetUserId) {
      throw new ParleyError('BAD_REQUEST', 'targetUserId must differ from currentUserId');
    }
    const id = dmChannelId(currentUserId, targetUserId);
    const existing = await this.channels.get(id);
    if (existing) return existing;
    const roles = new Map<string, ParticipantRole>([
      [currentUserId, this.#options.isAgent(currentUserId) ? 'agent' : 'member'],
      [targetUserId, this.#options.isAgent(targetUserId) ? 'agent' : 'member'],
    ]);
    const agentId = [...roles].find(([, role]) => role === 'agent')?.[0];
    try {
      return await this.create({
        id,
        name: `DM ${[currentUserId, targetUserId].map((user) => user.slice(0, 8)).join(' & ')}`,
        type: 'DM',
        participants: [...roles].filter(([, role]) => role === 'member').map(([user]) => user),
        ...(agentId ? { agentId } : {}),
        metadata: { isDm: true },
      });
    } catch (error) {
      // Asked for together: the other ask created it.
      if (ParleyError.isInstance(error) && error.code === 'CONFLICT')
        return this.channels.require(id);
      throw error;
    }
  }

  #requireAgent(agentId: string): void {
    if (!this.#options.isAgent(agentId)) throw new ParleyError('NOT_FOUND', `No agent ${agentId}`);
  }
}
