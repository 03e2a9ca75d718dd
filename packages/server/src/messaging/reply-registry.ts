import type { ReplyStream } from '../reply/parts/reply-stream';

/** A reply the registry holds: its stream and what stops it. */
export interface RegisteredReply {
  readonly stream: ReplyStream;
  /** Aborting it stops the reply's model call; the reply then ends with an error part. */
  readonly controller: AbortController;
  /** The reply's place in the queue, when it has one: a cancel frees it at once. */
  ticket?: { release(): void };
  /**
   * The reply is being stored (see {@link ReplyRegistry.beginStore}): it can no longer be cancelled, and a
   * cancel answers that it ended.
   */
  storing?: boolean;
}

/**
 * The replies of this process, by id and by the message they answer: running, or finished within the linger
 * time, so that a client can resume a stream and a retry finds the reply of its first try. Each reply has its own
 * AbortController (what a cancel aborts), which also follows the server's stop.
 */
export class ReplyRegistry {
  readonly #lingerMs: number;
  readonly #byId = new Map<string, RegisteredReply>();
  /** The same replies by the message they answer, for idempotent retries. */
  readonly #byMessage = new Map<string, RegisteredReply>();
  /** Replies still running, for a stop of them all. */
  readonly #running = new Set<AbortController>();
  #stopReason: unknown;
  #stopped = false;

  constructor(lingerMs: number) {
    this.#lingerMs = lingerMs;
  }

  /** Holds `stream` while it runs and for the linger time after; returns its entry with a controller. */
  add(stream: ReplyStream): RegisteredReply {
    const controller = new AbortController();
    if (this.#stopped) controller.abort(this.#stopReason);
    else this.#running.add(controller);
    const entry: RegisteredReply = { stream, controller };
    const { replyId, inReplyTo } = stream;
    this.#byId.set(replyId, entry);
    if (inReplyTo !== null) this.#byMessage.set(inReplyTo, entry);
    void stream.ended.then(() => {
      this.#running.delete(controller);
      const timer = setTimeout(() => {
        if (this.#byId.get(replyId) === entry) this.#byId.delete(replyId);
        if (inReplyTo !== null && this.#byMessage.get(inReplyTo) === entry) {
          this.#byMessage.delete(inReplyTo);
        }
      }, this.#lingerMs);
      timer.unref();
    });
    return entry;
  }

  /**
   * Marks `replyId` as being stored: from now on a cancel of it (here, or from another process, which asks this
   * one) answers that it ended instead of cancelling it, so a cancel never answers 202 for a reply that is then
   * stored. Synchronous, like the cancel, so the two never interleave.
   */
  beginStore(replyId: string): void {
    const entry = this.#byId.get(replyId);
    if (entry) entry.storing = true;
  }

  /** A reply still held, by its id. */
  get(replyId: string): RegisteredReply | undefined {
    return this.#byId.get(replyId);
  }

  /** The replies of `channelId` still running in this process. */
  runningIn(channelId: string): RegisteredReply[] {
    const found: RegisteredReply[] = [];
    for (const entry of this.#byId.values()) {
      if (entry.stream.channelId === channelId && !entry.stream.final) found.push(entry);
    }
    return found;
  }

  /** The reply still held that answers `messageId`. */
  answering(messageId: string): RegisteredReply | undefined {
    return this.#byMessage.get(messageId);
  }

  /** Whether {@link abortAll} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Stops every reply, running and future (the server is stopping). */
  abortAll(reason: unknown): void {
    this.#stopped = true;
    this.#stopReason = reason;
    for (const controller of this.#running) controller.abort(reason);
    this.#running.clear();
  }
}
