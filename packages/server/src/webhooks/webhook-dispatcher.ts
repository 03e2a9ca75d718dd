import { randomUUID } from 'node:crypto';
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
  store: Pick<WebhookStore, 'claimDue' | 'finishAttempt'> &
    Partial<Pick<WebhookStore, 'stillWanted'>>;
  sender: Pick<WebhookSender, 'send'>;
  logger: Logger;
  /** Wait before each retry, in order; a delivery gets `retryDelaysMs.length + 1` attempts. */
  retryDelaysMs: readonly number[];
  /** Attempts sent at once by this process, but for those a receiver has kept waiting `slowAfterMs`. */
  maxInFlight: number;
  /** Attempts sent at once to one subscription by this process, slow ones included. */
  perSubscription: number;
  /** How long an attempt holds one of the `maxInFlight` slots; after it, it waits on its receiver alone. */
  slowAfterMs: number;
  /** How often due deliveries are looked for (besides at once after each attempt ends). */
  pollMs: number;
  /** How long one attempt may take, everything included (for the claim's lease). */
  timeoutMs: number;
  observer?: WebhookObserver;
  /** A number in [0, 1) (default Math.random), for the retry jitter. */
  random?: () => number;
}

/** How far a retry's delay is moved at random, either way, so that receivers are not hit in waves. */
const JITTER = 0.2;

/**
 * Sends due deliveries: claims them (one process at a time per delivery), sends each, and records the attempt
 * and what follows: delivered on a 2xx, dead and the subscription disabled on `410 Gone`, otherwise a retry
 * after the next delay of the schedule (with jitter, and never before the receiver's `Retry-After`), and dead
 * after the last.
 *
 * A slow receiver delays only itself. Only deliveries of subscriptions with room are claimed (the claim is
 * given what this process holds per subscription), so every claimed delivery is sent at once and nothing
 * waits behind its own subscription holding a slot. An attempt holds one of the `maxInFlight` slots for
 * `slowAfterMs` at most: after that it is waiting on its receiver, not on this process, and lets another
 * attempt start (it still counts toward its subscription's bound until it ends, by its deadline). Attempts
 * at once are thus at most `maxInFlight` plus `perSubscription` per subscription whose receiver is slow.
 */
export class WebhookDispatcher {
  readonly #options: Required<Omit<WebhookDispatcherOptions, 'observer'>> &
    Pick<WebhookDispatcherOptions, 'observer'>;
  readonly #worker = randomUUID();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #loop: PollLoop;
  /** Attempts under way that still hold a slot (not yet slow). */
  #holding = 0;
  /** Attempts under way per subscription, slow ones included. */
  readonly #held = new Map<string, number>();
  /** The claim under way, if any: claims run one after another. */
  #claiming: Promise<unknown> = Promise.resolve();
  #refillQueued = false;
  #running = false;
  #failing = false;

  constructor(options: WebhookDispatcherOptions) {
    this.#options = { ...options, random: options.random ?? Math.random };
    this.#loop = new PollLoop({
      poll: () => this.poll(),
      intervalMs: this.#options.pollMs,
      onSuccess: () => this.#pollSucceeded(),
      onError: (error) => this.#pollFailed(error),
    });
  }

  start(): void {
    this.#running = true;
    this.#loop.start();
  }

  /** Stops claiming and waits for the attempts under way (each ends by its deadline). */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop.stop();
    await this.#claiming;
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Claims what is due and free slots allow, and starts sending it; resolves once claimed. */
  poll(): Promise<number> {
    const claim = this.#claiming.then(() => this.#claim());
    this.#claiming = claim.catch(() => undefined);
    return claim;
  }

  /** Sends until nothing is due and nothing is under way (for tests). */
  async drain(): Promise<void> {
    while ((await this.poll()) > 0 || this.#inFlight.size > 0) {
      await Promise.allSettled([...this.#inFlight]);
    }
  }

  async #claim(): Promise<number> {
    const free = this.#options.maxInFlight - this.#holding;
    if (free <= 0) return 0;
    const claimed = await this.#options.store.claimDue({
      worker: this.#worker,
      // The attempt's deadline, and as long again to record it; after a crash the delivery is claimed again
      // once it runs out.
      leaseMs: this.#options.timeoutMs * 2,
      limit: free,
      perSubscription: this.#options.perSubscription,
      held: this.#held,
    });
    for (const delivery of claimed) this.#send(delivery);
    return claimed.length;
  }

  /** Starts one attempt at once, holding a slot until it ends or turns slow. */
  #send(delivery: ClaimedDelivery): void {
    const { subscriptionId } = delivery;
    this.#held.set(subscriptionId, (this.#held.get(subscriptionId) ?? 0) + 1);
    this.#holding += 1;
    let holds = true;
    const release = () => {
      if (holds) this.#holding -= 1;
      holds = false;
    };
    const slow = setTimeout(release, this.#options.slowAfterMs);
    slow.unref();
    const sending = this.#deliver(delivery)
      .catch((error: unknown) => {
        // The attempt's record could not be written: the lease runs out and the delivery is tried again.
        this.#options.logger.warn(
          {
            deliveryId: delivery.id,
            error: error instanceof Error ? error.message : String(error),
          },
          'webhook attempt not recorded',
        );
      })
      .finally(() => {
        clearTimeout(slow);
        release();
        const left = (this.#held.get(subscriptionId) ?? 1) - 1;
        if (left > 0) this.#held.set(subscriptionId, left);
        else this.#held.delete(subscriptionId);
        this.#inFlight.delete(sending);
        this.#refill();
      });
    this.#inFlight.add(sending);
  }

  /**
   * Claims again at once after an attempt ends (once for attempts that end together), so a subscription's next
   * delivery does not wait for the next poll.
   */
  #refill(): void {
    if (!this.#running || this.#refillQueued) return;
    this.#refillQueued = true;
    setImmediate(() => {
      this.#refillQueued = false;
      if (!this.#running) return;
      this.poll().then(
        () => this.#pollSucceeded(),
        (error: unknown) => this.#pollFailed(error),
      );
    });
  }

  #pollSucceeded(): void {
    if (this.#failing) this.#options.logger.info('webhook deliveries resumed');
    this.#failing = false;
  }

  #pollFailed(error: unknown): void {
    if (!this.#failing) {
      this.#options.logger.warn(
        { error: error instanceof Error ? error.message : String(error) },
        'webhook poll failed; retrying',
      );
    }
    this.#failing = true;
  }

  async #deliver(delivery: ClaimedDelivery): Promise<void> {
    // Checked just before the attempt: a claimed delivery whose subscription was disabled since (another
    // delivery's 410 Gone, on any process) or that was ended meanwhile is not sent.
    if (
      this.#options.store.stillWanted &&
      !(await this.#options.store.stillWanted(delivery, this.#worker))
    ) {
      this.#options.logger.debug(
        { deliveryId: delivery.id, subscriptionId: delivery.subscriptionId },
        'webhook delivery dropped: its subscription is disabled',
      );
      return;
    }
    const result = await this.#options.sender.send(delivery);
    const outcome = this.#outcomeOf(delivery, result);
    const { ok, retryAfterMs: _retryAfter, refused, ...attempt } = result;
    await this.#options.store.finishAttempt(delivery, attempt, outcome);
    this.#options.observer?.attempt(ok ? 'success' : 'failure');
    if (outcome.status !== 'retry') this.#options.observer?.delivery(outcome.status);
    // Ids, the status and the error's kind or the refused address: never the URL (its query may carry a
    // token), the payload or the secret.
    this.#options.logger[outcome.status === 'dead' || refused ? 'warn' : 'debug'](
      {
        deliveryId: delivery.id,
        subscriptionId: delivery.subscriptionId,
        attempt: delivery.attempt,
        status: result.responseStatus,
        error: result.error,
        outcome: outcome.status,
      },
      refused ? 'webhook target refused; nothing sent' : 'webhook attempt',
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
