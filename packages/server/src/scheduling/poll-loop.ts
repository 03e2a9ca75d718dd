/** What a poll loop does each round, and with what comes of it. */
export interface PollLoopOptions {
  /** One round of work (claim what is due and handle it). */
  poll: () => Promise<unknown>;
  /** The pause after a round ends before the next begins. */
  intervalMs: number;
  /** A round failed; the loop goes on after the usual pause. */
  onError: (error: unknown) => void;
  /** A round succeeded. */
  onSuccess?: () => void;
}

/**
 * Runs `poll` at once on `start`, then `intervalMs` after each round ends (rounds never overlap), until `stop`.
 * Its timer does not keep the process alive. The scheduled-message and webhook dispatchers poll this way.
 */
export class PollLoop {
  readonly #options: PollLoopOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = true;

  constructor(options: PollLoopOptions) {
    this.#options = options;
  }

  start(): void {
    this.#stopped = false;
    this.#arm(0);
  }

  /** Stops polling and waits for the round under way, if any. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #arm(delayMs: number): void {
    if (this.#stopped) return;
    const { poll, intervalMs, onError, onSuccess } = this.#options;
    this.#timer = setTimeout(() => {
      this.#running = poll()
        .then(() => onSuccess?.())
        .catch(onError)
        .finally(() => this.#arm(intervalMs));
    }, delayMs);
    this.#timer.unref();
  }
}
