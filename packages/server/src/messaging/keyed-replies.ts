import { type AgentMessage, ParleyError, type StoredMessage } from '@parley/core';
import type { Logger } from 'pino';
import type { AgentProfile } from '../agents/agent-profile';
import { toReplyError } from '../reply/loop/reply-failure';
import { ReplyStream, storedReplyParts } from '../reply/parts/reply-stream';
import type { MessageStore, NewMessage } from '../storage/message-store';
import type { Idempotency, IdempotentClaim, IdempotentRequest } from './idempotency';
import type { UserMessageInput } from './messaging-types';
import type { PausedReplies } from '../reply/approvals/paused-replies';
import type { ReplyAdmission, ReplyTicket } from './reply-admission';
import type { ReplyRegistry } from './reply-registry';
import type { RoomBroadcaster } from '../reply/delivery/room-broadcaster';
import { toBroadcast } from '../reply/delivery/to-broadcast';

/** What a channel message under the idempotency key `key` asks: what a retry must ask again. */
export function conversationRequest(input: UserMessageInput, key: string): IdempotentRequest {
  return {
    endpoint: 'channel-message',
    key,
    channelId: input.channelId,
    clientId: input.entityId,
    request: {
      text: input.text,
      senderName: input.senderName,
      metadata: input.metadata ?? {},
      agentId: input.agentId,
      delivery: input.delivery,
      serverId: input.serverId,
      source: input.source,
      ifBusy: input.ifBusy,
    },
  };
}

/** What a `submit` under the idempotency key `key` asks. */
export function submitRequest(input: AgentMessage, key: string): IdempotentRequest {
  return {
    endpoint: 'submit',
    key,
    channelId: input.channel_id,
    clientId: input.author_id,
    request: input,
  };
}

/** What {@link KeyedReplies} needs of the messaging service. */
export interface KeyedRepliesOptions {
  /** The idempotency records; absent: keys are refused (BAD_REQUEST). */
  idempotency: Idempotency | undefined;
  store: MessageStore;
  broadcaster: RoomBroadcaster;
  logger: Logger;
  replies: ReplyRegistry;
  admission: ReplyAdmission;
  /** The replies paused for approvals, when the server keeps them. */
  paused: () => PausedReplies | undefined;
  /** Starts `agent`'s reply to `userMessage` in the channel's turn (the service's own start). */
  startReply(
    agent: AgentProfile,
    userMessage: StoredMessage,
    ticket: ReplyTicket,
    replyId: string,
  ): ReplyStream;
}

/**
 * The idempotent side of the conversation entry: a message stored once whatever the tries, and the reply of a
 * keyed request started once across processes (its claim held while it runs), followed from storage when
 * another process has it, taken over when that process died without finishing it.
 */
export class KeyedReplies {
  readonly #options: KeyedRepliesOptions;

  constructor(options: KeyedRepliesOptions) {
    this.#options = options;
  }

  /** The idempotency records; BAD_REQUEST when this server takes no keys. */
  require(): Idempotency {
    if (!this.#options.idempotency) {
      throw new ParleyError('BAD_REQUEST', 'This server does not take Idempotency-Key');
    }
    return this.#options.idempotency;
  }

  /**
   * Stores and broadcasts a message. When `idempotent`, a message already stored under its id is the same request
   * again if it has the same channel, author and text (it is returned, not broadcast again); anything else under
   * that id is a CONFLICT.
   */
  async storeOnce(
    message: NewMessage,
    idempotent = false,
  ): Promise<{ message: StoredMessage; replayed: boolean }> {
    const { store, broadcaster } = this.#options;
    try {
      const stored = await store.insert(message);
      broadcaster.emit(stored.channel_id, 'messageBroadcast', toBroadcast(stored));
      return { message: stored, replayed: false };
    } catch (error) {
      if (!idempotent || !ParleyError.isInstance(error) || error.code !== 'CONFLICT') throw error;
      const existing = await store.get(message.id);
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

  /**
   * The reply to a message posted by an earlier try: the one held in memory, else the stored one (rebuilt, and
   * not delivered to the room again); undefined when there is none (the process that took the first try died
   * before answering, or the agent chose not to answer).
   */
  async earlierReply(message: StoredMessage): Promise<ReplyStream | undefined> {
    const held = this.#options.replies.answering(message.id);
    if (held) return held.stream;
    const stored = await this.#options.store.findReplyTo(message.id);
    return stored && ReplyStream.ofStored(stored);
  }

  /**
   * The reply of a keyed request: started here when this try is the first to claim it (`replayed` as given),
   * else the claimed one, held here, paused for approvals, or awaited from storage (`replayed`, and `ticket`
   * released). Tries of one key in two processes at once: the first to claim the reply starts it; the other
   * waits. A reply whose process died unfinished is taken over, under its id.
   */
  async answer(
    claim: IdempotentClaim,
    agent: AgentProfile,
    message: StoredMessage,
    ticket: ReplyTicket,
    replayed: boolean,
    replyId: string,
  ): Promise<{ reply: ReplyStream; replayed: boolean }> {
    const claimed = await this.require().claimReply(claim.key, replyId);
    if (claimed.mine) {
      return { reply: this.#start(claim, agent, message, ticket, claimed.replyId), replayed };
    }
    ticket.release();
    // A reply paused for approval is followed to its end, not started again.
    const reply =
      this.#options.replies.get(claimed.replyId)?.stream ??
      (await this.#options.paused()?.follow(claimed.replyId)) ??
      this.#awaitStored(claim, claimed.replyId, message, agent);
    return { reply, replayed: true };
  }

  /** Starts a keyed request's reply: its claim on the key is held (renewed) until the reply ends. */
  #start(
    claim: IdempotentClaim,
    agent: AgentProfile,
    userMessage: StoredMessage,
    ticket: ReplyTicket,
    replyId: string,
  ): ReplyStream {
    const stream = this.#options.startReply(agent, userMessage, ticket, replyId);
    this.require().holdReply(claim.key, replyId, stream.ended);
    return stream;
  }

  /**
   * A keyed reply another process claimed: read from storage once it is stored (polled; the room receives it
   * from that process), or, when that process is gone without finishing it (its lease ran out), produced here
   * under its id. Ends with UNAVAILABLE when neither happens within the claim's time or the server stops.
   */
  #awaitStored(
    claim: IdempotentClaim,
    replyId: string,
    userMessage: StoredMessage,
    agent: AgentProfile,
  ): ReplyStream {
    const { replies, store, logger } = this.#options;
    const stream = new ReplyStream(replyId, userMessage.channel_id, userMessage.id, true);
    replies.add(stream);
    const unavailable = (message: string) =>
      stream.write({ type: 'error', replyId, code: 'UNAVAILABLE', message });
    void this.require()
      .followReply(claim.key, replyId, {
        stored: () => store.get(replyId),
        stopped: () => replies.stopped,
      })
      .then((followed) => {
        if (followed.outcome === 'stored') {
          for (const part of storedReplyParts(followed.message)) stream.write(part);
        } else if (followed.outcome === 'unavailable') {
          unavailable('The reply to this request is not ready; retry later');
        } else {
          this.#takeOver(claim, stream, agent, userMessage);
        }
      })
      .catch((error: unknown) =>
        stream.write(
          toReplyError(error, replyId, logger, {
            channelId: userMessage.channel_id,
            messageId: userMessage.id,
          }),
        ),
      );
    return stream;
  }

  /**
   * Produces here, under its id, the keyed reply `follower` waits for, whose process died unfinished; the
   * retry reading `follower` gets its parts. A full queue ends it with UNAVAILABLE (and frees the key's reply).
   */
  #takeOver(
    claim: IdempotentClaim,
    follower: ReplyStream,
    agent: AgentProfile,
    userMessage: StoredMessage,
  ): void {
    let ticket: ReplyTicket;
    try {
      ticket = this.#options.admission.admit(userMessage.channel_id);
    } catch {
      this.require().holdReply(claim.key, follower.replyId, follower.ended);
      follower.write({
        type: 'error',
        replyId: follower.replyId,
        code: 'UNAVAILABLE',
        message: 'The server has too many replies in progress; retry later',
      });
      return;
    }
    const live = this.#start(claim, agent, userMessage, ticket, follower.replyId);
    live.subscribe((part) => follower.write(part));
  }
}
