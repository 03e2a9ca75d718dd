import {
  type AgentMessage,
  DEFAULT_SERVER_ID,
  type IfBusy,
  isUuid,
  type ChannelHistoryQuery as HistoryQuery,
  ParleyError,
  type StoredMessage,
  agentPostSchema,
  parseOrThrow,
  reservedUuid,
} from '@parley/core';
import { context as traceContext } from '@opentelemetry/api';
import type { AgentPostOptions, ControlOptions } from '@parley/plugin-sdk';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import type { AgentProfile } from '../agents/agent-profile';
import type { AgentAbilities } from '../agents/agent-abilities';
import type { AgentRegistry } from '../agents/agent-registry';
import { DEFAULTS } from '../defaults';
import type { AgentLoopLimits } from '../reply/loop/loop-limits';
import { postCallbackContent } from '../reply/tools/post-callback-content';
import type { ModelProvider } from '../models/model-provider';
import type { MessageStore, NewMessage } from '../storage/message-store';
import type { ChannelSequencer } from './channel-sequencer';
import {
  Idempotency,
  type IdempotencyRecords,
  type IdempotentClaim,
  type IdempotentRequest,
} from './idempotency';
import { KeyedQueue } from './keyed-queue';
import { produceModelReply, type ModelReplyContext } from '../reply/loop/produce-model-reply';
import type { ReplyTelemetry } from '../tracing/reply-telemetry';
import {
  DEFAULT_REPLY_LIMITS,
  ReplyAdmission,
  type ReplyLimits,
  type ReplyTicket,
} from './reply-admission';
import { type ReplyExtractor, createReplyExtractor } from '../reply/loop/reply-extractor';
import { toReplyError } from '../reply/loop/reply-failure';
import { ReplyRegistry } from './reply-registry';
import { PausedReplies } from './paused-replies';
import { continueModelReply } from '../reply/approvals/continue-reply';
import type { ApprovalStore } from '../storage/approval-store';
import { type ReplyConsumer, ReplyStream, storedReplyParts } from '../reply/parts/reply-stream';
import type { RoomBroadcaster } from './room-broadcaster';
import { toBroadcast } from './to-broadcast';

export { DEFAULT_REPLY_LIMITS, type ReplyLimits } from './reply-admission';

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
   * The client's idempotency key: the request takes effect once per channel, entity and key, whatever the
   * process and however many tries arrive together. Another request under the same key is a CONFLICT.
   */
  idempotencyKey?: string;
  /** How the caller takes the reply (`stream`, `sync`, `websocket`): part of what an idempotent request asks. */
  delivery?: string;
  /** While a reply to the channel runs (default: the agent's character `ifBusy`, else `enqueue`). */
  ifBusy?: IfBusy;
}

/** What a process answers about a reply it was asked to cancel. */
export type CancelOutcome = 'cancelled' | 'ended' | 'unknown';

/**
 * The other processes of the cluster, for what only the process holding a reply can do. Each call asks them
 * all and gathers their answers; an unreachable process answers nothing.
 */
export interface ReplyPeers {
  /** Has the process running `replyId` cancel it; each process's {@link MessagingService.cancelHere} answer. */
  cancel(replyId: string, channelId: string | undefined): Promise<CancelOutcome[]>;
  /** Cancels every reply of `channelId` running in another process; how many were. */
  interrupt(channelId: string): Promise<number>;
  /** Whether a reply of `channelId` is waiting or running in another process. */
  busy(channelId: string): Promise<boolean>;
}

/** The error part a cancelled reply ends with. */
export const CANCELLED_MESSAGE = 'The reply was cancelled';

/** A user message posted and the reply to it started: what the one conversation entry returns. */
export interface Conversation {
  message: StoredMessage;
  agent: AgentProfile;
  /** The reply's part stream: the room already receives it; callers subscribe for their own delivery. */
  reply: ReplyStream;
  /** True when an earlier try of the same idempotent request posted the message (and started the reply). */
  replayed: boolean;
}

/** What the messaging service needs. */
export interface MessagingServiceOptions {
  store: MessageStore;
  agents: AgentRegistry;
  model: ModelProvider;
  logger: Logger;
  /** Where stored user messages and control messages go to the clients of a room. */
  broadcaster: RoomBroadcaster;
  /** Every new reply is handed to each of these when it starts (the room's delivery, the metrics). */
  consumers?: readonly ReplyConsumer[];
  /** The secret and the first request of each idempotency key (without it, keys are refused). */
  idempotency?: IdempotencyRecords;
  limits?: Partial<ReplyLimits>;
  /** How many earlier messages of the channel the model sees (default 20). */
  historyLimit?: number;
  /** Extractor for each reply (default: {@link createReplyExtractor}). */
  createExtractor?: () => ReplyExtractor;
  /**
   * Orders replies per channel (default: an in-process queue). Processes sharing a database pass one sequencer
   * on it, so that a channel's replies keep one order whichever process received its messages.
   */
  sequencer?: ChannelSequencer;
  /** How long a finished reply stays resumable from memory (default 10 s); stored replies resume from storage. */
  replyLingerMs?: number;
  /** The other processes sharing the database (a cancel reaches the one holding the reply). */
  peers?: ReplyPeers;
  /** What each agent can do (its plugins' actions, providers, evaluators); none: agents only talk. */
  abilitiesOf?: (agentId: string) => AgentAbilities | undefined;
  /** Bounds of each reply's loop of model and tool calls (default `DEFAULTS.agentLoop`). */
  loopLimits?: Partial<AgentLoopLimits>;
  /** Values no tool result may show (the server's keys), besides each agent's own secrets. */
  serverSecrets?: readonly string[];
  /**
   * Where replies that wait for approvals are kept, and their bounds (default `DEFAULTS.approvals`). Without
   * it, a call that needs approval is refused.
   */
  approvals?: { store: ApprovalStore } & Partial<Record<keyof typeof DEFAULTS.approvals, number>>;
  /** Spans and metrics of each reply, its model calls and tool calls (default: none). */
  telemetry?: ReplyTelemetry;
}

/** Source types of the stored messages that are replies (read back as a reply's events). */
const REPLY_SOURCES = new Set(['agent_response', 'scheduled']);

/**
 * Messages into channels and agent replies out of them, free of HTTP and socket types. A user's message enters
 * through {@link MessagingService.converse}, for REST and the socket alike: admitted, stored, answered. Every
 * reply, whatever started it, is one {@link ReplyStream} of parts handed to the consumers given at construction
 * (the room, the metrics); HTTP consumers (SSE, `sync`) subscribe to the same stream. Replies in one channel are
 * produced in order, channels in parallel, with a bound on model calls and on waiting replies.
 */
export class MessagingService {
  readonly #options: MessagingServiceOptions;
  readonly #queue: ChannelSequencer;
  readonly #modelCalls: LimitFunction;
  readonly #admission: ReplyAdmission;
  readonly #replies: ReplyRegistry;
  readonly #idempotency: Idempotency | undefined;
  readonly #replyContext: Omit<ModelReplyContext, 'signal'>;
  readonly #paused: PausedReplies | undefined;

  constructor(options: MessagingServiceOptions) {
    this.#options = options;
    this.#queue = options.sequencer ?? new KeyedQueue();
    const limits = { ...DEFAULT_REPLY_LIMITS, ...options.limits };
    this.#modelCalls = pLimit(limits.maxConcurrentModelCalls);
    this.#admission = new ReplyAdmission(limits);
    this.#replies = new ReplyRegistry(options.replyLingerMs ?? 10_000);
    this.#idempotency = options.idempotency && new Idempotency(options.idempotency, options.logger);
    this.#replyContext = {
      store: options.store,
      model: options.model,
      logger: options.logger,
      historyLimit: options.historyLimit ?? 20,
      createExtractor: options.createExtractor ?? createReplyExtractor,
      abilitiesOf: options.abilitiesOf,
      loopLimits: { ...DEFAULTS.agentLoop, ...options.loopLimits },
      serverSecrets: options.serverSecrets,
      telemetry: options.telemetry,
      beginStore: (replyId) => this.#replies.beginStore(replyId),
      pauses: options.approvals && {
        store: options.approvals.store,
        timeoutMs: options.approvals.timeoutMs ?? DEFAULTS.approvals.timeoutMs,
      },
      postAsAgent: async (agent, content, inReplyTo) =>
        (
          await postCallbackContent(
            (post) => this.postAgentMessage(agent, post),
            agent.agentId,
            content,
            {
              channelId: inReplyTo.channel_id,
              serverId: inReplyTo.server_id,
              inReplyTo: inReplyTo.id,
            },
          )
        ).memories,
    };
    this.#paused = options.approvals && this.#pausedReplies(options.approvals);
  }

  /** Replies that wait for approvals: their sweep starts and stops with the server. */
  get pausedReplies(): PausedReplies | undefined {
    return this.#paused;
  }

  /**
   * Approves or denies a call of a paused reply (see {@link PausedReplies.decide}); NOT_FOUND when this server
   * keeps no paused replies.
   */
  decideApproval(
    replyId: string,
    input: { toolCallId: string; approved: boolean; reason?: string },
    channelId?: string,
  ) {
    if (!this.#paused)
      throw new ParleyError('NOT_FOUND', `No approval request in reply ${replyId}`);
    return this.#paused.decide(replyId, input, channelId);
  }

  /**
   * The conversation entry: posts a user's message and starts the agent's reply. Refused before anything is
   * stored when the channel (RATE_LIMITED) or the server (UNAVAILABLE) has too many replies waiting, a place
   * taken synchronously. With an idempotency key, a retry (or tries arriving together) gets the first try's
   * message and reply; the same key asking something else is a CONFLICT.
   */
  converse(input: UserMessageInput): Promise<Conversation> {
    if (input.idempotencyKey === undefined) return this.#converse(input, undefined);
    const request: IdempotentRequest = {
      endpoint: 'channel-message',
      key: input.idempotencyKey,
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
    const { joined, result } = this.#requireIdempotency().once(request, () =>
      this.#converse(input, request),
    );
    return joined ? result.then((conversation) => ({ ...conversation, replayed: true })) : result;
  }

  /**
   * Stores and broadcasts a message posted through `POST /api/messaging/submit`. No agent is asked to reply.
   * With an idempotency key, the same request again answers the message already stored; another is a CONFLICT.
   */
  submit(
    input: AgentMessage,
    idempotencyKey?: string,
  ): Promise<{ message: StoredMessage; replayed: boolean }> {
    if (idempotencyKey === undefined) return this.#submit(input, undefined);
    const request: IdempotentRequest = {
      endpoint: 'submit',
      key: idempotencyKey,
      channelId: input.channel_id,
      clientId: input.author_id,
      request: input,
    };
    const { joined, result } = this.#requireIdempotency().once(request, () =>
      this.#submit(input, request),
    );
    return joined ? result.then((submitted) => ({ ...submitted, replayed: true })) : result;
  }

  /**
   * Posts a message as an agent (plugins, scheduled messages): validated (BAD_REQUEST naming the field),
   * stored, then delivered like every reply, through the stored message's part stream. An explicit `id` makes
   * the post idempotent: a second post with the same id fails with CONFLICT, and the room sees nothing of it.
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
    this.#publish(ReplyStream.ofStored(message));
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
    // The store remembers each channel's agent (set once, never changed): no query per message.
    const channelAgentId = (await store.getChannel(channelId))?.agentId;
    return (channelAgentId && agents.find(channelAgentId)) || agents.defaultAgent;
  }

  /**
   * A reply's part stream, to read it again: the one held in memory (running, or finished within the linger
   * time), else the stored reply, else a reply that paused for approvals, followed from its stored parts to its
   * end wherever it goes on (until `signal` aborts). Only a reply is one (never a user's message), and with
   * `channelId` only a reply of that channel: anything else is NOT_FOUND, whether or not it exists.
   */
  async openReply(replyId: string, channelId?: string, signal?: AbortSignal): Promise<ReplyStream> {
    const inChannel = (id: string) => channelId === undefined || id === channelId;
    const held = this.#replies.get(replyId)?.stream;
    if (held && held.final?.type !== 'reply-pause') {
      if (inChannel(held.channelId)) return held;
    } else {
      const stored = held ? undefined : await this.#options.store.get(replyId);
      if (stored && this.#isReply(stored) && inChannel(stored.channel_id)) {
        return ReplyStream.ofStored(stored);
      }
      const paused = await this.#paused?.follow(replyId, channelId, signal);
      if (paused) return paused;
    }
    throw new ParleyError('NOT_FOUND', `No reply ${replyId} to resume`);
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
    return this.#admission.pending;
  }

  /**
   * Cancels a running reply, in this process or another of the cluster: its stream ends at once with an `error`
   * part of code CANCELLED (the room gets `messageError`), its model request is aborted, its place in the
   * channel's queue is freed, and nothing of it is stored. With `channelId`, only a reply of that channel.
   * NOT_FOUND for an unknown reply (or one of another channel), CONFLICT for one that already ended.
   */
  async cancelReply(replyId: string, channelId?: string): Promise<void> {
    let outcome = this.cancelHere(replyId, channelId);
    if (outcome === 'unknown' && this.#options.peers) {
      const answers = await this.#options.peers.cancel(replyId, channelId);
      if (answers.includes('cancelled')) outcome = 'cancelled';
      else if (answers.includes('ended')) outcome = 'ended';
    }
    if (outcome === 'unknown' && (await this.#cancelWaiting(replyId, channelId))) {
      outcome = 'cancelled';
    }
    if (outcome === 'unknown') {
      const stored = await this.#options.store.get(replyId);
      if (
        stored &&
        this.#isReply(stored) &&
        (channelId === undefined || stored.channel_id === channelId)
      ) {
        outcome = 'ended';
      }
    }
    if (outcome === 'unknown') throw new ParleyError('NOT_FOUND', `No reply ${replyId}`);
    if (outcome === 'ended') {
      throw new ParleyError('CONFLICT', `Reply ${replyId} already ended or is being stored`);
    }
  }

  /**
   * Cancels `replyId` if this process runs it: `cancelled`, `ended` when it holds it already ended or being
   * stored (too late to cancel: the reply stands), `unknown` when it does not hold it (or only follows it for another process). Synchronous: what another process's
   * request is answered with.
   */
  cancelHere(replyId: string, channelId?: string): CancelOutcome {
    const entry = this.#replies.get(replyId);
    if (!entry || (channelId !== undefined && entry.stream.channelId !== channelId)) {
      return 'unknown';
    }
    // A reply paused for approvals is stored, not held: its cancel goes through storage.
    if (entry.stream.final) return entry.stream.final.type === 'reply-pause' ? 'unknown' : 'ended';
    // A stream that follows another process's reply (an idempotent retry) is not this process's to stop.
    if (entry.stream.restored) return 'unknown';
    // Being stored: too late to cancel, the reply stands (it ends with reply-end, or fails on its own).
    if (entry.storing) return 'ended';
    entry.stream.write({ type: 'error', replyId, code: 'CANCELLED', message: CANCELLED_MESSAGE });
    entry.controller.abort(new ParleyError('CANCELLED', CANCELLED_MESSAGE));
    entry.ticket?.release();
    return 'cancelled';
  }

  /** Cancels a reply that waits for approvals: the room hears it end as a running reply's cancel does. */
  async #cancelWaiting(replyId: string, channelId: string | undefined): Promise<boolean> {
    const part = { type: 'error', replyId, code: 'CANCELLED', message: CANCELLED_MESSAGE } as const;
    const paused = await this.#paused?.cancelWaiting(replyId, channelId, part);
    if (!paused) return false;
    const { broadcaster } = this.#options;
    const room = { roomId: paused.channelId, channelId: paused.channelId };
    const completed = { messageId: paused.inReplyTo, ...room };
    broadcaster.emit(paused.channelId, 'messageError', {
      code: part.code,
      message: part.message,
      ...completed,
    });
    broadcaster.emit(paused.channelId, 'messageComplete', completed);
    return true;
  }

  /** Cancels every reply of `channelId` this process runs; how many. */
  interruptHere(channelId: string): number {
    let cancelled = 0;
    for (const entry of this.#replies.runningIn(channelId)) {
      if (this.cancelHere(entry.stream.replyId) === 'cancelled') cancelled += 1;
    }
    return cancelled;
  }

  /** Whether a reply of `channelId` is waiting or running in this process. */
  busyHere(channelId: string): boolean {
    return this.#admission.busy(channelId);
  }

  /** Ends every reply still running with an error part (the server is stopping). */
  abortReplies(): void {
    this.#replies.abortAll(new ParleyError('UNAVAILABLE', 'The server is stopping'));
  }

  async #converse(
    input: UserMessageInput,
    idempotent: IdempotentRequest | undefined,
  ): Promise<Conversation> {
    // Taken before the first await: requests arriving together are counted one by one.
    const ticket = this.#admission.admit(input.channelId);
    try {
      const agent = await this.resolveAgent(input.channelId, input.agentId);
      await this.#whileBusy(input, agent, ticket);
      const claim = idempotent && (await this.#requireIdempotency().claim(idempotent));
      const id = claim ? claim.id : (input.messageId ?? reservedUuid());
      const { message, replayed } = await this.#storeOnce(
        {
          id,
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
        idempotent !== undefined,
      );
      if (replayed) {
        const earlier = await this.#earlierReply(message);
        if (earlier) {
          ticket.release();
          return { message, agent, reply: earlier, replayed };
        }
      }
      const replyId = reservedUuid();
      if (claim) {
        // Tries of one key in two processes at once: the first to claim the reply starts it; the other waits.
        // A reply whose process died unfinished is taken over, under its id.
        const claimed = await this.#requireIdempotency().claimReply(claim.key, replyId);
        if (!claimed.mine) {
          ticket.release();
          // A reply paused for approval is followed to its end, not started again.
          const reply =
            this.#replies.get(claimed.replyId)?.stream ??
            (await this.#paused?.follow(claimed.replyId)) ??
            this.#awaitStoredReply(claim, claimed.replyId, message, agent);
          return { message, agent, reply, replayed: true };
        }
        const reply = this.#startKeyedReply(claim, agent, message, ticket, claimed.replyId);
        return { message, agent, reply, replayed };
      }
      return { message, agent, reply: this.#startReply(agent, message, ticket, replyId), replayed };
    } catch (error) {
      ticket.release();
      throw error;
    }
  }

  async #submit(
    input: AgentMessage,
    idempotent: IdempotentRequest | undefined,
  ): Promise<{ message: StoredMessage; replayed: boolean }> {
    const author = this.#options.agents.find(input.author_id);
    const id = idempotent
      ? (await this.#requireIdempotency().claim(idempotent)).id
      : reservedUuid();
    return this.#storeOnce(
      {
        id,
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
      idempotent !== undefined,
    );
  }

  /**
   * Applies `ifBusy` (the message's, else the agent's character's, else `enqueue`): `reject` refuses with
   * CHANNEL_BUSY when a reply to the channel was admitted before this one (here) or is running elsewhere;
   * `interrupt` cancels the channel's running replies, here and in the other processes.
   */
  async #whileBusy(input: UserMessageInput, agent: AgentProfile, ticket: ReplyTicket) {
    const ifBusy = input.ifBusy ?? agent.ifBusy ?? 'enqueue';
    const { channelId } = input;
    const peers = this.#options.peers;
    if (ifBusy === 'reject') {
      if (ticket.behindAnother() || (peers && (await peers.busy(channelId)))) {
        throw new ParleyError(
          'CHANNEL_BUSY',
          'The agent is still answering in this channel; retry when it is done',
        );
      }
    } else if (ifBusy === 'interrupt') {
      this.interruptHere(channelId);
      if (peers) await peers.interrupt(channelId);
    }
  }

  /**
   * The reply to a message posted by an earlier try: the one held in memory, else the stored one (rebuilt, and
   * not delivered to the room again); undefined when there is none (the process that took the first try died
   * before answering, or the agent chose not to answer).
   */
  async #earlierReply(message: StoredMessage): Promise<ReplyStream | undefined> {
    const held = this.#replies.answering(message.id);
    if (held) return held.stream;
    const stored = await this.#options.store.findReplyTo(message.id);
    return stored && ReplyStream.ofStored(stored);
  }

  /** Has `agent` answer `userMessage`, queued behind earlier replies of the channel; `ticket` ends with it. */
  #startReply(
    agent: AgentProfile,
    userMessage: StoredMessage,
    ticket: ReplyTicket,
    replyId: string,
  ): ReplyStream {
    const stream = new ReplyStream(replyId, userMessage.channel_id, userMessage.id);
    const context = this.#replyContext;
    const { entry, done } = this.#run(stream, (signal) =>
      produceModelReply({ ...context, signal }, stream, agent, userMessage),
    );
    entry.ticket = ticket;
    void done.finally(() => ticket.release());
    return stream;
  }

  /** {@link #startReply} for a keyed request: its claim on the key is held (renewed) until the reply ends. */
  #startKeyedReply(
    claim: IdempotentClaim,
    agent: AgentProfile,
    userMessage: StoredMessage,
    ticket: ReplyTicket,
    replyId: string,
  ): ReplyStream {
    const stream = this.#startReply(agent, userMessage, ticket, replyId);
    this.#requireIdempotency().holdReply(claim.key, replyId, stream.ended);
    return stream;
  }

  /**
   * A keyed reply another process claimed: read from storage once it is stored (polled; the room receives it
   * from that process), or, when that process is gone without finishing it (its lease ran out), produced here
   * under its id. Ends with UNAVAILABLE when neither happens within the claim's time or the server stops.
   */
  #awaitStoredReply(
    claim: IdempotentClaim,
    replyId: string,
    userMessage: StoredMessage,
    agent: AgentProfile,
  ): ReplyStream {
    const stream = new ReplyStream(replyId, userMessage.channel_id, userMessage.id, true);
    this.#replies.add(stream);
    const unavailable = (message: string) =>
      stream.write({ type: 'error', replyId, code: 'UNAVAILABLE', message });
    void this.#requireIdempotency()
      .followReply(claim.key, replyId, {
        stored: () => this.#options.store.get(replyId),
        stopped: () => this.#replies.stopped,
      })
      .then((followed) => {
        if (followed.outcome === 'stored') {
          for (const part of storedReplyParts(followed.message)) stream.write(part);
        } else if (followed.outcome === 'unavailable') {
          unavailable('The reply to this request is not ready; retry later');
        } else {
          this.#takeOverReply(claim, stream, agent, userMessage);
        }
      })
      .catch((error: unknown) =>
        stream.write(
          toReplyError(error, replyId, this.#options.logger, {
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
  #takeOverReply(
    claim: IdempotentClaim,
    follower: ReplyStream,
    agent: AgentProfile,
    userMessage: StoredMessage,
  ): void {
    let ticket: ReplyTicket;
    try {
      ticket = this.#admission.admit(userMessage.channel_id);
    } catch {
      this.#requireIdempotency().holdReply(claim.key, follower.replyId, follower.ended);
      follower.write({
        type: 'error',
        replyId: follower.replyId,
        code: 'UNAVAILABLE',
        message: 'The server has too many replies in progress; retry later',
      });
      return;
    }
    const live = this.#startKeyedReply(claim, agent, userMessage, ticket, follower.replyId);
    live.subscribe((part) => follower.write(part));
  }

  /** The coordinator of paused replies, with this service's registry, queue and agent loop. */
  #pausedReplies(approvals: NonNullable<MessagingServiceOptions['approvals']>): PausedReplies {
    const { store, agents, logger } = this.#options;
    return new PausedReplies({
      store: approvals.store,
      messages: store,
      agents,
      logger,
      leaseMs: approvals.leaseMs ?? DEFAULTS.approvals.leaseMs,
      sweepMs: approvals.sweepMs ?? DEFAULTS.approvals.sweepMs,
      followPollMs: approvals.followPollMs ?? DEFAULTS.approvals.followPollMs,
      held: (replyId) => this.#replies.get(replyId)?.stream,
      stopped: () => this.#replies.stopped,
      run: (stream, _agent, produce) => {
        this.#run(stream, produce);
      },
      continueReply: (stream, agent, userMessage, checkpoint, decisions, signal) =>
        continueModelReply(
          { ...this.#replyContext, signal },
          stream,
          agent,
          userMessage,
          checkpoint,
          decisions,
        ),
    });
  }

  /**
   * Publishes `stream` and runs `produce` in the channel's turn, within the bound on model calls. A reply
   * cancelled while it waits (its stream already ended) takes no turn; one aborted by the server's stop still
   * goes through the producer, which ends it with the stop's error. Returns the registry's entry.
   */
  #run(stream: ReplyStream, produce: (signal: AbortSignal) => Promise<void>) {
    const entry = this.#publish(stream);
    const { signal } = entry.controller;
    // The reply runs later, in the channel's turn: in the trace of what started it (the request's span).
    const started = traceContext.active();
    const done = this.#queue
      .run(stream.channelId, async () => {
        if (!stream.final)
          await this.#modelCalls(() =>
            stream.final ? undefined : traceContext.with(started, () => produce(signal)),
          );
      })
      // The producer never rejects; the channel's sequencer can (its database gone): the reply still ends.
      .catch((error: unknown) =>
        stream.write(
          toReplyError(error, stream.replyId, this.#options.logger, {
            channelId: stream.channelId,
            messageId: stream.inReplyTo ?? undefined,
          }),
        ),
      );
    return { entry, done };
  }

  /** Hands a new reply to every consumer and holds it for resuming. */
  #publish(stream: ReplyStream) {
    for (const consume of this.#options.consumers ?? []) consume(stream);
    return this.#replies.add(stream);
  }

  /** Whether a stored message is an agent's reply or post (what may be read back as a reply's events). */
  #isReply(message: StoredMessage): boolean {
    return (
      REPLY_SOURCES.has(message.source_type) &&
      this.#options.agents.find(message.author_id) !== undefined
    );
  }

  #requireIdempotency(): Idempotency {
    if (!this.#idempotency) {
      throw new ParleyError('BAD_REQUEST', 'This server does not take Idempotency-Key');
    }
    return this.#idempotency;
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
}

/** A history `before` (validated by core's query schema): a message id (the exact cursor) or an instant. */
function toHistoryCursor(before: string | undefined): Date | { messageId: string } | undefined {
  if (before === undefined) return undefined;
  return isUuid(before) ? { messageId: before } : new Date(before);
}
