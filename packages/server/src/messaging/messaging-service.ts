import {
  type AgentMessage,
  DEFAULT_SERVER_ID,
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
import type { AgentProfile } from '../agents/agent-profile';
import type { ModelReplyContext } from '../reply/loop/loop-types';
import { produceModelReply } from '../reply/loop/produce-model-reply';
import { toReplyError } from '../reply/loop/reply-failure';
import { ReplyStream } from '../reply/parts/reply-stream';
import type { ChannelSequencer } from './channel-sequencer';
import { Idempotency, type IdempotentRequest } from './idempotency';
import { replyContextOf } from './reply-context';
import { KeyedQueue } from './keyed-queue';
import { conversationRequest, KeyedReplies, submitRequest } from './keyed-replies';
import type {
  CancelOutcome,
  Conversation,
  MessagingServiceOptions,
  UserMessageInput,
} from './messaging-types';
import type { PausedReplies } from '../reply/approvals/paused-replies';
import { createPausedReplies } from '../reply/approvals/paused-replies-wiring';
import { DEFAULT_REPLY_LIMITS, ReplyAdmission, type ReplyTicket } from './reply-admission';
import { ReplyCancel } from './reply-cancel';
import { currentScope, inScope } from '../tracing/work-scope';
import { withDecidingSpan } from '../tracing/reply-telemetry';
import { annotate } from '../tracing/in-span';
import { contextOfStored } from '../tracing/trace-context';
import { ReplyRegistry } from './reply-registry';
import { toBroadcast } from '../reply/delivery/to-broadcast';

export { DEFAULT_REPLY_LIMITS, type ReplyLimits } from './reply-admission';

export {
  CANCELLED_MESSAGE,
  type CancelOutcome,
  type Conversation,
  type MessagingServiceOptions,
  type ReplyPeers,
  type UserMessageInput,
} from './messaging-types';
import { DEFAULTS } from '../defaults';

/** Source types of the stored messages that are replies (read back as a reply's events). */
/** The sources of the messages that are replies (an agent's answer, a scheduled post). */
export const REPLY_SOURCES: ReadonlySet<string> = new Set(['agent_response', 'scheduled']);

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
  readonly #keyed: KeyedReplies;
  readonly #cancel: ReplyCancel;
  readonly #replyContext: Omit<ModelReplyContext, 'signal'>;
  readonly #paused: PausedReplies | undefined;

  constructor(options: MessagingServiceOptions) {
    this.#options = options;
    this.#queue = options.sequencer ?? new KeyedQueue();
    const limits = { ...DEFAULT_REPLY_LIMITS, ...options.limits };
    this.#modelCalls = pLimit(limits.maxConcurrentModelCalls);
    this.#admission = new ReplyAdmission(limits);
    this.#replies = new ReplyRegistry(options.replyLingerMs ?? DEFAULTS.internals.replyLingerMs);
    this.#replyContext = replyContextOf(options, this.#replies, (agent, post) =>
      this.postAgentMessage(agent, post),
    );
    this.#paused =
      options.approvals &&
      createPausedReplies({
        approvals: options.approvals,
        messages: options.store,
        agents: options.agents,
        logger: options.logger,
        replies: this.#replies,
        replyContext: this.#replyContext,
        run: (stream, produce, storedContext) => {
          this.#run(stream, produce, storedContext);
        },
      });
    this.#keyed = new KeyedReplies({
      idempotency: options.idempotency && new Idempotency(options.idempotency, options.logger),
      store: options.store,
      broadcaster: options.broadcaster,
      logger: options.logger,
      replies: this.#replies,
      admission: this.#admission,
      paused: () => this.#paused,
      startReply: (agent, userMessage, ticket, replyId) =>
        this.#startReply(agent, userMessage, ticket, replyId),
    });
    this.#cancel = new ReplyCancel({
      replies: this.#replies,
      store: options.store,
      broadcaster: options.broadcaster,
      peers: options.peers,
      paused: () => this.#paused,
      isReply: (message) => this.#isReply(message),
    });
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
    input: { toolCallId: string; approved: boolean; reason?: string; decidedBy?: string },
    channelId?: string,
  ) {
    if (this.#options.traceContext !== false) annotate({ 'parley.reply.id': replyId });
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
    const request = conversationRequest(input, input.idempotencyKey);
    const { joined, result } = this.#keyed
      .require()
      .once(request, () => this.#converse(input, request));
    return joined ? result.then((conversation) => ({ ...conversation, replayed: true })) : result;
  }

  /**
   * Asks the channel's agent to answer a stored user message again (Regenerate). The new answer is a reply like
   * any other, stored with `in_reply_to` the same message: the earlier answers stay, and clients show the
   * answers to one message as its alternatives, the newest first. The model does not see the answers it
   * replaces. Admitted like a new message (RATE_LIMITED, UNAVAILABLE); NOT_FOUND for a message that is not a
   * user's message of that channel.
   */
  async regenerate(channelId: string, messageId: string): Promise<Conversation> {
    return this.#answerAgain(channelId, messageId);
  }

  /**
   * A person edits a message they sent, and it is answered again (Edit and resend). The stored message takes
   * the new text (the texts it had before are kept in `metadata.edits`, oldest first, and `metadata.editedAt`
   * says when), the room gets it again as `messageBroadcast` (same id, new text), and the channel's agent
   * answers the new text as {@link regenerate} does. NOT_FOUND for a message that is not a person's message of
   * the channel; FORBIDDEN unless `editor` wrote it (an admin may edit any).
   */
  async edit(
    channelId: string,
    messageId: string,
    text: string,
    editor: { entityId?: string; admin: boolean },
  ): Promise<Conversation> {
    return this.#answerAgain(channelId, messageId, { text, editor });
  }

  /**
   * Regenerate and edit: the channel's agent answers a person's message again (a new reply `in_reply_to` it,
   * marked `regenerated`, the earlier answers kept as its alternatives and no longer shown to the model), after
   * the message takes its new text when it is edited.
   */
  async #answerAgain(
    channelId: string,
    messageId: string,
    edit?: { text: string; editor: { entityId?: string; admin: boolean } },
  ): Promise<Conversation> {
    const ticket = this.#admission.admit(channelId);
    try {
      const stored = await this.#options.store.get(messageId);
      if (
        !stored ||
        stored.channel_id !== channelId ||
        this.#options.agents.find(stored.author_id) !== undefined ||
        (edit && REPLY_SOURCES.has(stored.source_type))
      ) {
        throw new ParleyError(
          'NOT_FOUND',
          `No message ${messageId} to ${edit ? 'edit' : 'answer again'} in this channel`,
        );
      }
      if (edit && !edit.editor.admin && edit.editor.entityId !== stored.author_id) {
        throw new ParleyError('FORBIDDEN', 'Only the author of a message may edit it');
      }
      const agent = await this.resolveAgent(channelId);
      const message = edit ? await this.#storeEdit(stored, edit.text) : stored;
      const reply = this.#startReply(agent, message, ticket, reservedUuid(), true);
      return { message, agent, reply, replayed: false };
    } catch (error) {
      ticket.release();
      throw error;
    }
  }

  /** Stores a message's new text (its earlier texts kept) and shows the room the message with it. */
  async #storeEdit(message: StoredMessage, text: string): Promise<StoredMessage> {
    const editedAt = new Date().toISOString();
    const earlier: unknown[] = Array.isArray(message.metadata.edits) ? message.metadata.edits : [];
    const edited = await this.#options.store.edit(message.id, {
      content: text,
      metadata: {
        ...message.metadata,
        edits: [...earlier, { text: message.content, until: editedAt }],
        editedAt,
      },
    });
    if (!edited)
      throw new ParleyError('NOT_FOUND', `No message ${message.id} to edit in this channel`);
    // The room sees the new text in place of the old (clients key messages by id), then the new answer.
    this.#options.broadcaster.emit(message.channel_id, 'messageBroadcast', toBroadcast(edited));
    return edited;
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
    const request = submitRequest(input, idempotencyKey);
    const { joined, result } = this.#keyed
      .require()
      .once(request, () => this.#submit(input, request));
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
  async resolveAgent(
    channelId: string,
    agentId?: string,
    seen?: UserMessageInput['channel'],
  ): Promise<AgentProfile> {
    const { agents, store } = this.#options;
    if (agentId) return agents.get(agentId);
    // The store remembers each channel's agent (set once, never changed): no query per message; nor when the
    // request's access check read the channel already.
    const channelAgentId =
      seen !== undefined ? seen?.agentId : (await store.getChannel(channelId))?.agentId;
    // A stopped agent answers nothing: CONFLICT, never another agent in its place.
    return agents.available((channelAgentId && agents.find(channelAgentId)) || agents.defaultAgent);
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
  cancelReply(replyId: string, channelId?: string): Promise<void> {
    // The cancel's span (its HTTP request, its socket event) names the reply it is about.
    if (this.#options.traceContext !== false) annotate({ 'parley.reply.id': replyId });
    return this.#cancel.cancelReply(replyId, channelId);
  }

  /**
   * Cancels `replyId` if this process runs it: `cancelled`, `ended` when it holds it already ended or being
   * stored (too late to cancel: the reply stands), `unknown` when it does not hold it (or only follows it for
   * another process). Synchronous: what another process's request is answered with.
   */
  cancelHere(replyId: string, channelId?: string): CancelOutcome {
    return this.#cancel.cancelHere(replyId, channelId);
  }

  /** Cancels every reply of `channelId` this process runs; how many. */
  interruptHere(channelId: string): number {
    return this.#cancel.interruptHere(channelId);
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
      const agent = await this.resolveAgent(input.channelId, input.agentId, input.channel);
      await this.#whileBusy(input, agent, ticket);
      const claim = idempotent && (await this.#keyed.require().claim(idempotent));
      const id = claim ? claim.id : (input.messageId ?? reservedUuid());
      const { message, replayed } = await this.#keyed.storeOnce(
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
        const earlier = await this.#keyed.earlierReply(message);
        if (earlier) {
          ticket.release();
          return { message, agent, reply: earlier, replayed };
        }
      }
      const replyId = reservedUuid();
      if (claim) {
        const keyed = await this.#keyed.answer(claim, agent, message, ticket, replayed, replyId);
        return { message, agent, ...keyed };
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
    const id = idempotent ? (await this.#keyed.require().claim(idempotent)).id : reservedUuid();
    return this.#keyed.storeOnce(
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

  /** Has `agent` answer `userMessage`, queued behind earlier replies of the channel; `ticket` ends with it. */
  #startReply(
    agent: AgentProfile,
    userMessage: StoredMessage,
    ticket: ReplyTicket,
    replyId: string,
    regenerated = false,
  ): ReplyStream {
    const stream = new ReplyStream(replyId, userMessage.channel_id, userMessage.id);
    stream.regenerated = regenerated;
    // The span of what started it (the request, the socket event) names the reply.
    if (this.#options.traceContext !== false) annotate({ 'parley.reply.id': replyId });
    const context = this.#replyContext;
    const { entry, done } = this.#run(stream, (signal) =>
      produceModelReply({ ...context, signal }, stream, agent, userMessage),
    );
    entry.ticket = ticket;
    void done.finally(() => ticket.release());
    return stream;
  }

  /**
   * Publishes `stream` and runs `produce` in the channel's turn, within the bound on model calls. A reply
   * cancelled while it waits (its stream already ended) takes no turn; one aborted by the server's stop still
   * goes through the producer, which ends it with the stop's error. Returns the registry's entry.
   */
  #run(
    stream: ReplyStream,
    produce: (signal: AbortSignal) => Promise<void>,
    storedContext?: unknown,
  ) {
    const entry = this.#publish(stream);
    const { signal } = entry.controller;
    // The reply runs later, in the channel's turn: in the trace of what started it (the request's span, or the
    // context stored with a paused reply), its log lines naming that request.
    const traced = this.#options.traceContext !== false;
    const started = !traced
      ? undefined
      : storedContext
        ? withDecidingSpan(contextOfStored(storedContext))
        : traceContext.active();
    // Its log lines name that request, and its model calls count against the day's budget of the person it was
    // started for (none for the others of the queue).
    const scope = currentScope();
    const waiting = started && this.#options.telemetry?.queueWait?.(stream, started);
    const done = this.#queue
      .run(stream.channelId, async () => {
        if (!stream.final)
          await this.#modelCalls(() => {
            waiting?.end(stream.final !== undefined);
            return stream.final
              ? undefined
              : inScope(scope, () =>
                  started ? traceContext.with(started, () => produce(signal)) : produce(signal),
                );
          });
        else waiting?.end(true);
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
}

/** A history `before` (validated by core's query schema): a message id (the exact cursor) or an instant. */
function toHistoryCursor(before: string | undefined): Date | { messageId: string } | undefined {
  if (before === undefined) return undefined;
  return isUuid(before) ? { messageId: before } : new Date(before);
}
