import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { SendResult } from './send-webhook';
import { WebhookDispatcher } from './webhook-dispatcher';
import type { AttemptOutcome, ClaimedDelivery, WebhookStore } from './webhook-store';

/** A store holding claimed deliveries in memory, recording what each attempt led to. */
function memoryStore(deliveries: ClaimedDelivery[]) {
  const outcomes: AttemptOutcome[] = [];
  const store = {
    claimDue: ({ limit }: { limit: number }) => Promise.resolve(deliveries.splice(0, limit)),
    finishAttempt: (_delivery: ClaimedDelivery, _attempt: unknown, outcome: AttemptOutcome) => {
      outcomes.push(outcome);
      return Promise.resolve();
    },
  };
  return { store: store as unknown as WebhookStore, outcomes };
}

function delivery(attempt: number): ClaimedDelivery {
  return { id: 'd', subscriptionId: 's', url: 'http://x', secret: 'whsec_x', payload: {}, attempt };
}

function answer(responseStatus: number | null, retryAfterMs?: number): SendResult {
  return {
    ok: responseStatus !== null && responseStatus < 300,
    attemptedAt: new Date().toISOString(),
    durationMs: 1,
    responseStatus,
    responseBody: null,
    error: responseStatus === null ? 'timed out' : null,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

async function outcomeOf(
  attempt: number,
  result: SendResult,
  random = () => 0.5,
): Promise<AttemptOutcome> {
  const { store, outcomes } = memoryStore([delivery(attempt)]);
  const dispatcher = new WebhookDispatcher({
    store,
    sender: { send: () => Promise.resolve(result) },
    logger: pino({ level: 'silent' }),
    retryDelaysMs: [1000, 60_000],
    timeoutMs: 1000,
    maxInFlight: 4,
    perSubscription: 2,
    slowAfterMs: 1000,
    pollMs: 1000,
    random,
  });
  await dispatcher.drain();
  return outcomes[0]!;
}

describe('WebhookDispatcher', () => {
  it('follows the schedule, then gives up: a failure after the last delay is dead', async () => {
    expect(await outcomeOf(1, answer(500))).toEqual({ status: 'retry', afterMs: 1000 });
    expect(await outcomeOf(2, answer(null))).toEqual({ status: 'retry', afterMs: 60_000 });
    expect(await outcomeOf(3, answer(503))).toEqual({ status: 'dead' });
    expect(await outcomeOf(1, answer(204))).toEqual({ status: 'delivered' });
  });

  it('moves each retry at random within ±20%', async () => {
    expect(await outcomeOf(1, answer(500), () => 0)).toEqual({ status: 'retry', afterMs: 800 });
    expect(await outcomeOf(1, answer(500), () => 0.999_999)).toEqual({
      status: 'retry',
      afterMs: 1200,
    });
  });

  it("never retries before the receiver's Retry-After", async () => {
    expect(await outcomeOf(1, answer(429, 30_000))).toEqual({ status: 'retry', afterMs: 30_000 });
    expect(await outcomeOf(1, answer(503, 10))).toEqual({ status: 'retry', afterMs: 1000 });
  });

  it('410 Gone ends the delivery and disables the subscription, at any attempt', async () => {
    expect(await outcomeOf(1, answer(410))).toMatchObject({
      status: 'dead',
      disableSubscription: expect.stringMatching(/410/) as unknown,
    });
  });

  it('a redirect is a failure, not followed', async () => {
    expect(await outcomeOf(1, answer(302))).toMatchObject({ status: 'retry' });
  });
});

describe('WebhookDispatcher slots', () => {
  it('an attempt its receiver keeps waiting past slowAfterMs frees its slot; one that ends frees it at once', async () => {
    const waiting: (() => void)[] = [];
    const queue = ['slow-1', 'slow-2', 'fast-1', 'fast-2'].map((id) => ({
      ...delivery(1),
      id,
      subscriptionId: id.split('-')[0]!,
    }));
    const { store, outcomes } = memoryStore(queue);
    const dispatcher = new WebhookDispatcher({
      store,
      sender: {
        send: (claimed) =>
          claimed.subscriptionId === 'slow'
            ? new Promise((resolve) => waiting.push(() => resolve(answer(204))))
            : Promise.resolve(answer(204)),
      },
      logger: pino({ level: 'silent' }),
      retryDelaysMs: [],
      timeoutMs: 60_000,
      maxInFlight: 2,
      perSubscription: 2,
      slowAfterMs: 30,
      pollMs: 1000,
    });
    expect(await dispatcher.poll()).toBe(2);
    // Both slots are held by the two slow attempts…
    expect(await dispatcher.poll()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // …until they have waited slowAfterMs: then both slots are free again, the slow attempts still under way.
    expect(await dispatcher.poll()).toBe(2);
    expect(waiting).toHaveLength(2);
    for (const release of waiting) release();
    await dispatcher.drain();
    expect(outcomes).toEqual(Array.from({ length: 4 }, () => ({ status: 'delivered' })));
  });
});
