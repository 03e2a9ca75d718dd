import { type ApprovalDecided, ParleyError, type StoredMessage } from '@parley/core';
import type { Logger } from 'pino';
import type { AgentRegistry } from '../../agents/agent-registry';
import type { AgentProfile } from '../../agents/agent-profile';
import type { LoopCheckpoint } from './pause-reply';
import type { ReplyPart } from '../parts/reply-part';
import { ReplyStream } from '../parts/reply-stream';
import { PollLoop } from '../../scheduling/poll-loop';
import type { ApprovalStore, ClaimedReply, PausedReply, StoredDecision } from './approval-store';
import type { MessageStore } from '../../storage/message-store';

/** What {@link PausedReplies} needs of the messaging service. */
export interface PausedRepliesOptions {
  store: ApprovalStore;
  messages: MessageStore;
  agents: AgentRegistry;
  logger: Logger;
  /** How long a process holds a continuation before another may take it over (renewed while it runs). */
  leaseMs: number;
  /** How often expired requests and replies ready to go on are looked for. */
  sweepMs: number;
  /** How often a client following a paused reply run elsewhere looks for what it did. */
  followPollMs: number;
  /** The stream this process holds for a reply, running or lingering. */
  held: (replyId: string) => ReplyStream | undefined;
  /**
   * Publishes `stream` to the reply's consumers and runs the continuation in the channel's turn, in the trace
   * of the stored `traceContext` (what paused it), when there is one.
   */
  run(
    stream: ReplyStream,
    agent: AgentProfile,
    produce: (signal: AbortSignal) => Promise<void>,
    traceContext?: unknown,
  ): void;
  /** Continues a paused reply into `stream` (the agent loop's `continueModelReply`). */
  continueReply(
    stream: ReplyStream,
    agent: AgentProfile,
    userMessage: StoredMessage,
    checkpoint: LoopCheckpoint,
    decisions: StoredDecision[],
    signal: AbortSignal,
  ): Promise<void>;
  stopped: () => boolean;
  /**
   * Told each decision once it is taken (the audit records it here, in the caller's scope, whichever face it came
   * by: REST, the socket, the UI chat or A2A). Awaited; it must not throw.
   */
  onDecided?: OnApprovalDecided;
}

/** What {@link PausedRepliesOptions.onDecided} is told of one decision. */
export type OnApprovalDecided = (
  decided: ApprovalDecided,
  input: { reason?: string; decidedBy?: string; channelId: string },
) => Promise<void> | void;

/** How many ready replies one sweep claims. */
const CLAIM_BATCH = 16;
/** How long an ended pause stays readable by clients that follow it, then how many rows one sweep removes. */
const ENDED_KEPT_MS = 60 * 60 * 1000;
const PURGE_BATCH = 100;

/**
 * Replies that wait for approvals, across processes and restarts: a decision is taken once (one conditional
 * statement), the process whose decision completes a reply's requests continues it (or, when it cannot, the
 * sweep of any process does: it also expires requests past their time and takes over continuations whose
 * process died), and a client can follow a paused reply wherever it goes on.
 */
export class PausedReplies {
  readonly #options: PausedRepliesOptions;
  readonly #sweep: PollLoop;
  /** Followers of this process waiting for their reply's next look, by reply. */
  readonly #wakers = new Map<string, Set<() => void>>();

  constructor(options: PausedRepliesOptions) {
    this.#options = options;
    this.#sweep = new PollLoop({
      poll: () => this.sweep(),
      intervalMs: options.sweepMs,
      onError: (error) => options.logger.warn({ err: error }, 'paused replies sweep failed'),
    });
  }

  start(): void {
    this.#sweep.start();
  }

  stop(): Promise<void> {
    return this.#sweep.stop();
  }

  /**
   * Approves or denies one waiting call: NOT_FOUND for an unknown reply or call (or one of another channel, when
   * `channelId` is given), CONFLICT when it was decided already or the reply no longer waits. Once every
   * request of the reply is decided, it goes on in this process: claimed and started before this returns, so a
   * client that follows it once answered finds it running here.
   */
  async decide(
    replyId: string,
    input: { toolCallId: string; approved: boolean; reason?: string; decidedBy?: string },
    channelId?: string,
  ): Promise<ApprovalDecided> {
    const { store, leaseMs, logger } = this.#options;
    const decision = input.approved ? 'approved' : 'denied';
    // One conditional statement takes it, and claims the reply when it was the last decision it waited for;
    // only when it is not taken is the request read, to tell why.
    const taken = await store.decide(
      replyId,
      input.toolCallId,
      decision,
      input.reason,
      input.decidedBy,
      { channelId, claimLeaseMs: this.#options.stopped() ? undefined : leaseMs },
    );
    if (!taken) {
      const state = await store.requestState(replyId, input.toolCallId);
      if (!state || (channelId !== undefined && state.channelId !== channelId)) {
        throw new ParleyError(
          'NOT_FOUND',
          `No approval request ${input.toolCallId} in reply ${replyId}`,
        );
      }
      throw new ParleyError('CONFLICT', 'This approval request was already decided or has expired');
    }
    const decided: ApprovalDecided = { replyId, toolCallId: input.toolCallId, status: decision };
    try {
      await this.#options.onDecided?.(decided, {
        reason: input.reason,
        decidedBy: input.decidedBy,
        channelId: taken.channelId,
      });
    } finally {
      // A reply this decision claimed goes on here whatever the audit did (else only once its lease lapsed).
      await (taken.claimed ? this.#continue(taken.claimed) : this.#resumeReady(replyId)).catch(
        (error: unknown) =>
          logger.warn({ err: error, replyId }, 'a decided reply did not go on yet; the sweep will'),
      );
    }
    return decided;
  }

  /**
   * One round: expire requests past their time, go on with ready replies, remove long-ended pauses. A round
   * with nothing open or stale costs one statement (every process sweeps each second, most of them idle).
   */
  async sweep(): Promise<void> {
    const { store } = this.#options;
    const needs = await store.sweepNeeds(ENDED_KEPT_MS);
    if (needs.open) {
      await store.expireDue();
      await this.#resumeReady();
    }
    if (needs.stale) await store.purgeEnded(ENDED_KEPT_MS, PURGE_BATCH);
  }

  /**
   * A stream that follows the paused reply `replyId` from its stored parts to its end, wherever it goes on:
   * live from this process's continuation, else from what the one that runs it stores at each pause and at the
   * end. Undefined when no such reply paused. Stops looking when `signal` aborts.
   */
  async follow(
    replyId: string,
    channelId?: string,
    signal?: AbortSignal,
  ): Promise<ReplyStream | undefined> {
    const paused = await this.#options.store.get(replyId);
    if (!paused || (channelId !== undefined && paused.channelId !== channelId)) return undefined;
    const stream = ReplyStream.continuing(
      replyId,
      paused.channelId,
      paused.inReplyTo,
      paused.parts as ReplyPart[],
    );
    void this.#track(stream, signal).catch((error: unknown) => {
      this.#options.logger.warn({ err: error, replyId }, 'following a paused reply failed');
      stream.write({
        type: 'error',
        replyId,
        code: 'UNAVAILABLE',
        message: 'The reply cannot be followed now; read it again later',
      });
    });
    return stream;
  }

  /**
   * Cancels a reply that waits for approvals: it ends with `part` (stored as ended, so no process continues
   * it). Returns the reply, or undefined when it does not wait (unknown, running, or ended).
   */
  async cancelWaiting(
    replyId: string,
    channelId: string | undefined,
    part: ReplyPart,
  ): Promise<PausedReply | undefined> {
    const paused = await this.#options.store.get(replyId);
    if (!paused || paused.status !== 'waiting') return undefined;
    if (channelId !== undefined && paused.channelId !== channelId) return undefined;
    const ended = await this.#options.store.endWaiting(replyId, [...paused.parts, part]);
    return ended ? paused : undefined;
  }

  /** Where the paused reply `replyId` stands (undefined: none, or one of another channel when given). */
  async statusOf(replyId: string, channelId?: string): Promise<PausedReply['status'] | undefined> {
    const paused = await this.#options.store.get(replyId);
    if (!paused || (channelId !== undefined && paused.channelId !== channelId)) return undefined;
    return paused.status;
  }

  async #track(stream: ReplyStream, signal?: AbortSignal): Promise<void> {
    const { followPollMs, store } = this.#options;
    while (!stream.final && !signal?.aborted && !this.#options.stopped()) {
      const live = this.#options.held(stream.replyId);
      if (live && live !== stream && live.liveFrom > 0 && live.final?.type !== 'reply-pause') {
        // This process runs it: its parts as they come, until it ends or pauses again.
        const unsubscribe = live.subscribe((part) => {
          if (part.type !== 'reply-pause') stream.write(part);
        }, stream.parts.length);
        signal?.addEventListener('abort', unsubscribe, { once: true });
        await live.ended;
        continue;
      }
      const row = await store.get(stream.replyId);
      if (!row) {
        stream.write({
          type: 'error',
          replyId: stream.replyId,
          code: 'NOT_FOUND',
          message: 'The reply is gone',
        });
        return;
      }
      for (const part of (row.parts as ReplyPart[]).slice(stream.parts.length)) {
        if (part.type !== 'reply-pause') stream.write(part);
      }
      if (!stream.final) await this.#nextLook(stream.replyId, followPollMs);
    }
  }

  /** Claims the replies ready to go on (`replyId` alone when given) and continues each here. */
  async #resumeReady(replyId?: string): Promise<void> {
    if (this.#options.stopped()) return;
    const claimed = await this.#options.store.claimReady(
      this.#options.leaseMs,
      CLAIM_BATCH,
      replyId,
    );
    for (const paused of claimed) await this.#continue(paused);
  }

  /** Starts the continuation of a claimed reply here (it runs in the channel's turn; this does not wait for it). */
  async #continue(paused: ClaimedReply): Promise<void> {
    const { agents, messages, store, logger, leaseMs } = this.#options;
    const { replyId, decisions } = paused;
    const stream = ReplyStream.continuing(
      replyId,
      paused.channelId,
      paused.inReplyTo,
      paused.parts as ReplyPart[],
    );
    const agent = agents.find(paused.agentId);
    // The channel's recent messages in memory hold it, on the embedded database, unless it is old.
    const userMessage = await messages.get(paused.inReplyTo, paused.channelId);
    const checkpoint = paused.progress as unknown as LoopCheckpoint | null;
    if (!agent || !userMessage || !checkpoint) {
      logger.warn({ replyId }, 'a paused reply cannot go on: its agent, message or state is gone');
      await store.end(replyId, [
        ...paused.parts,
        { type: 'error', replyId, code: 'INTERNAL', message: 'The reply cannot go on' },
      ]);
      return;
    }
    // Held while it runs: another process takes it over only if this one stops renewing.
    const renew = setInterval(() => {
      store
        .renew(replyId, leaseMs)
        .catch((error: unknown) =>
          logger.warn({ err: error, replyId }, 'the lease of a continued reply was not renewed'),
        );
    }, leaseMs / 3);
    renew.unref();
    void stream.ended.then(async (final) => {
      clearInterval(renew);
      // A second pause stored itself; any other end is recorded for clients that follow the reply.
      if (final.type === 'reply-pause') return;
      await store
        .end(replyId, stream.parts)
        .catch((error: unknown) =>
          logger.warn({ err: error, replyId }, 'the end of a continued reply was not recorded'),
        );
    });
    this.#options.run(
      stream,
      agent,
      (signal) =>
        this.#options.continueReply(stream, agent, userMessage, checkpoint, decisions, signal),
      paused.traceContext,
    );
    // Clients of this process that follow the reply take it live at once.
    for (const wake of this.#wakers.get(replyId) ?? []) wake();
  }

  /** Waits `ms`, or less when this process starts continuing `replyId`. */
  async #nextLook(replyId: string, ms: number): Promise<void> {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const wakers = this.#wakers.get(replyId) ?? new Set();
    this.#wakers.set(replyId, wakers.add(wake));
    const timer = setTimeout(wake, ms);
    timer.unref();
    await woken;
    clearTimeout(timer);
    wakers.delete(wake);
    if (wakers.size === 0) this.#wakers.delete(replyId);
  }
}
