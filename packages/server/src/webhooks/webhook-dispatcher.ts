import { randomUUID } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import { PollLoop } from '../scheduling/poll-loop';
import type { SendResult, WebhookSender } from './send-webhook';
import type { AttemptOutcome, ClaimedDelivery, WebhookStore } from './webhook-store';

/** What the dispatcher counts (metrics). */
export interface WebhookObserver {
  attempt(result: 'success' | 'failure'): void;
  delivery(outcome: 'delivered' | 'dead'): void;
}

/** Options of {@link WebhookDispatcher}. */
export interface WebhookDispatcherOptions {
  store: WebhookStore;
  sender: Pick<WebhookSender, 'send'>;
  logger: Logger;
  /** Wait before each retry, in order; a delivery gets `retryDelaysMs.length + 1` attempts. */
  retryDelaysMs: readonly number[];
  /** Attempts sent at once by this process. */
  maxInFlight: number;
  /** Attempts sent at once to one subscription by this process. */
  perSubscription: number;
  /** How often due deliveries are looked for. */
  pollMs: number;
  /** How long one attempt may take (for the claim's lease). */
  timeoutMs: number;
  observer?: WebhookObserver;
  /** A number in [0, 1) (default Math.random), for the retry jitter. */
  random?: () => number;
}

/** How far a retry's delay is moved at random, either way, so that receivers are not hit in waves. */
const JITTER = 0.2;

/**
 * Sends due deliveries: claims them (one process at a time per delivery), sends each with bounded
 * concurrency per subscription and in all, and records the attempt and what follows: delivered on a 2xx,
 * dead and the subscription disabled on `410 Gone`, otherwise a retry after the next delay of the schedule
 * (with jitter, and never before the receiver's `Retry-After`), and dead after the last.
 */
export class WebhookDispatcher {
  readonly #options: Required<Omit<WebhookDispatcherOptions, 'observer'>> &
    Pick<WebhookDispatcherOptions, 'observer'>;
  readonly #worker = randomUUID();
  readonly #all: LimitFunction;
  readonly #perSubscription = new Map<string, LimitFunction>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #loop: PollLoop;
  #failing = false;

  constructor(options: WebhookDispatcherOptions) {
    this.#options = { ...options, random: options.random ?? Math.random };
    this.#all = pLimit(this.#options.maxInFlight);
    this.#loop = new PollLoop({
      poll: () => this.poll(),
      intervalMs: this.#options.pollMs,
      onSuccess: () => {
        if (this.#failing) this.#options.logger.info('webhook deliveries resumed');
        this.#failing = false;
      },
      onError: (error) => {
        if (!this.#failing) {
          this.#options.logger.warn(
            { error: error instanceof Error ? error.message : String(error) },
            'webhook poll failed; retrying',
          );
        }
        this.#failing = true;
      },
    });
  }

  start(): void {
    this.#loop.start();
  }

  /** Stops claiming and waits for the attempts under way (each ends by its deadline). */
  async stop(): Promise<void> {
    await this.#loop.stop();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Claims what is due and free slots allow, and starts sending it; resolves once claimed. */
  async poll(): Promise<number> {
    const free = this.#options.maxInFlight - this.#inFlight.size;
    if (free <= 0) return 0;
    // A claim lasts while the delivery may wait behind others of its subscription and is sent, and one more
    // deadline for recording it; after a crash the delivery is claimed again once it runs out.
    const waves = Math.ceil(this.#options.maxInFlight / this.#options.perSubscription) + 2;
    const leaseMs = this.#options.timeoutMs * waves;
    const claimed = await this.#options.store.claimDue(this.#worker, leaseMs, free);
    for (const delivery of claimed) {
      const sending = this.#limitFor(delivery.subscriptionId)(() =>
        this.#all(() => this.#deliver(delivery)),
      ).catch((error: unknown) => {
        // The attempt's record could not be written: the lease runs out and the delivery is tried again.
        this.#options.logger.warn(
          {
            deliveryId: delivery.id,
            error: error instanceof Error ? error.message : String(error),
          },
          'webhook attempt not recorded',
        );
      });
      this.#inFlight.add(sending);
      void sending.finally(() => this.#inFlight.delete(sending));
    }
    return claimed.length;
  }

  /** Sends until nothing is due and nothing is under way (for tests). */
  async drain(): Promise<void> {
    while ((await this.poll()) > 0 || this.#inFlight.size > 0) {
      await Promise.allSettled([...this.#inFlight]);
    }
  }

  #limitFor(subscriptionId: string): <T>(task: () => Promise<T>) => Promise<T> {
    const limit =
      this.#perSubscription.get(subscriptionId) ?? pLimit(this.#options.perSubscription);
    this.#perSubscription.set(subscriptionId, limit);
    return async <T>(task: () => Promise<T>) => {
      try {
        return await limit(task);
      } finally {
        // Bounded: a subscription with nothing under way keeps no entry.
        if (limit.activeCount === 0 && limit.pendingCount === 0) {
          this.#perSubscription.delete(subscriptionId);
        }
      }
    };
  }

  async #deliver(delivery: ClaimedDelivery): Promise<void> {
    const result = await this.#options.sender.send(delivery);
    const outcome = this.#outcomeOf(delivery, result);
    const { ok, retryAfterMs: _retryAfter, ...attempt } = result;
    await this.#options.store.finishAttempt(delivery, attempt, outcome);
    this.#options.observer?.attempt(ok ? 'success' : 'failure');
    if (outcome.status !== 'retry') this.#options.observer?.delivery(outcome.status);
    this.#options.logger[outcome.status === 'dead' ? 'warn' : 'debug'](
      {
        deliveryId: delivery.id,
        subscriptionId: delivery.subscriptionId,
        attempt: delivery.attempt,
        status: result.responseStatus,
        error: result.error,
        outcome: outcome.status,
      },
      'webhook attempt',
    );
  }

  #outcomeOf(delivery: ClaimedDelivery, result: SendResult): AttemptOutcome {
    if (result.ok) return { status: 'delivered' };
    if (result.responseStatus === 410) {
      return { status: 'dead', disableSubscription: 'the receiver answered 410 Gone' };
    }
    const delay = this.#options.retryDelaysMs[delivery.attempt - 1];
    if (delay === undefined) return { status: 'dead' };
    const jittered = delay * (1 - JITTER + 2 * JITTER * this.#options.random());
    const wait = Math.max(jittered, result.retryAfterMs ?? 0);
    return { status: 'retry', afterMs: Math.round(wait) };
  }
}
