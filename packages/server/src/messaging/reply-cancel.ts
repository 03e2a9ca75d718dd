import { ParleyError, type StoredMessage } from '@parley/core';
import type { MessageStore } from '../storage/message-store';
import { CANCELLED_MESSAGE, type CancelOutcome, type ReplyPeers } from './messaging-types';
import type { PausedReplies } from '../reply/approvals/paused-replies';
import type { ReplyRegistry } from './reply-registry';
import type { RoomBroadcaster } from '../reply/delivery/room-broadcaster';

/** What {@link ReplyCancel} needs of the messaging service. */
export interface ReplyCancelOptions {
  replies: ReplyRegistry;
  store: MessageStore;
  broadcaster: RoomBroadcaster;
  peers: ReplyPeers | undefined;
  /** The replies paused for approvals, when the server keeps them. */
  paused: () => PausedReplies | undefined;
  /** Whether a stored message is an agent's reply (what a cancel may find ended). */
  isReply: (message: StoredMessage) => boolean;
}

/**
 * How many more looks a cancel takes for a reply whose approvals were just decided, and how far apart: its
 * continuation registers within a few statements of the claim, on this process or another.
 */
const CONTINUATION_LOOKS = 40;
const CONTINUATION_LOOK_MS = 25;

/** Cancels of replies: running here, in another process of the cluster, or waiting for approvals. */
export class ReplyCancel {
  readonly #options: ReplyCancelOptions;

  constructor(options: ReplyCancelOptions) {
    this.#options = options;
  }

  /**
   * See `MessagingService.cancelReply`. A reply that paused for approvals and was just decided is, for a moment,
   * neither waiting nor running anywhere (claimed, its continuation not yet registered): the cancel looks again
   * until it finds it running (and cancels it) or ended, and answers CONFLICT if it still cannot; it never
   * answers NOT_FOUND for a reply that exists.
   */
  async cancelReply(replyId: string, channelId?: string): Promise<void> {
    let outcome = await this.#cancelOnce(replyId, channelId);
    for (let look = 0; outcome === 'unknown' && look < CONTINUATION_LOOKS; look += 1) {
      const status = await this.#options.paused()?.statusOf(replyId, channelId);
      if (status === undefined) break;
      if (status === 'ended') {
        outcome = 'ended';
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, CONTINUATION_LOOK_MS));
      outcome = await this.#cancelOnce(replyId, channelId);
    }
    if (outcome === 'unknown' && (await this.#options.paused()?.statusOf(replyId, channelId))) {
      throw new ParleyError(
        'CONFLICT',
        `Reply ${replyId} is going on after its approvals and could not be stopped yet; cancel it again`,
      );
    }
    if (outcome === 'unknown') throw new ParleyError('NOT_FOUND', `No reply ${replyId}`);
    if (outcome === 'ended') {
      throw new ParleyError('CONFLICT', `Reply ${replyId} already ended or is being stored`);
    }
  }

  /** One look everywhere a reply can be: here, the other processes, waiting for approvals, stored. */
  async #cancelOnce(replyId: string, channelId?: string): Promise<CancelOutcome> {
    const { peers, store, isReply } = this.#options;
    let outcome = this.cancelHere(replyId, channelId);
    if (outcome === 'unknown' && peers) {
      const answers = await peers.cancel(replyId, channelId);
      if (answers.includes('cancelled')) outcome = 'cancelled';
      else if (answers.includes('ended')) outcome = 'ended';
    }
    if (outcome === 'unknown' && (await this.#cancelWaiting(replyId, channelId))) {
      outcome = 'cancelled';
    }
    if (outcome === 'unknown') {
      const stored = await store.get(replyId);
      if (
        stored &&
        isReply(stored) &&
        (channelId === undefined || stored.channel_id === channelId)
      ) {
        outcome = 'ended';
      }
    }
    return outcome;
  }

  /** See `MessagingService.cancelHere`. */
  cancelHere(replyId: string, channelId?: string): CancelOutcome {
    const entry = this.#options.replies.get(replyId);
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

  /** Cancels every reply of `channelId` this process runs; how many. */
  interruptHere(channelId: string): number {
    let cancelled = 0;
    for (const entry of this.#options.replies.runningIn(channelId)) {
      if (this.cancelHere(entry.stream.replyId) === 'cancelled') cancelled += 1;
    }
    return cancelled;
  }

  /** Cancels a reply that waits for approvals: the room hears it end as a running reply's cancel does. */
  async #cancelWaiting(replyId: string, channelId: string | undefined): Promise<boolean> {
    const part = { type: 'error', replyId, code: 'CANCELLED', message: CANCELLED_MESSAGE } as const;
    const paused = await this.#options.paused()?.cancelWaiting(replyId, channelId, part);
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
}
