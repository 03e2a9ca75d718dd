import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { startTestServer, type TestServer } from '../../test/test-server';
import type { ServerOptions } from '../create-server';
import { DEFAULTS } from '../defaults';
import {
  client,
  type StallingReceiver,
  startReceiver,
  startStallingReceiver,
  until,
} from './test-support';

/** Attempts of the stalling receivers end by this deadline, far beyond the whole test's wait. */
const STALL_DEADLINE_MS = 30_000;
/** How long the healthy receiver's deliveries may take: far above normal (under a second), far below the deadline. */
const HEALTHY_WITHIN_MS = 15_000;

const WEBHOOKS: ServerOptions['webhooks'] = {
  retryDelaysMs: [60_000],
  privateTargets: ['127.0.0.1'],
  timeoutMs: STALL_DEADLINE_MS,
  pollMs: 20,
};

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0).reverse()) await dispose();
});

/** PGlite in one server; PostgreSQL shared by two servers, each its own pool, dispatcher and worker. */
const setups = (await databaseKinds()).map((kind) => ({
  ...kind,
  servers: kind.name === 'postgres' ? 2 : 1,
}));

describe.each(setups)('slow webhook receivers on $name ($servers servers)', (setup) => {
  it.skipIf(setup.skip)(
    "four receivers that hang or trickle their headers hold every slot first, and a healthy receiver's 24 deliveries still all arrive before any of their attempts times out",
    async () => {
      const database = await setup.create();
      cleanup.push(() => database.dispose());
      const servers: TestServer[] = [];
      for (let i = 0; i < setup.servers; i += 1) {
        const server = await startTestServer(
          { webhooks: WEBHOOKS },
          { ...database, dispose: () => Promise.resolve() },
        );
        cleanup.push(() => server.server.stop());
        servers.push(server);
      }
      const apis = servers.map((server) => client(server.url));
      const say = (i: number, text: string) => apis[i % apis.length]!.say(randomUUID(), text);

      // Closed first at cleanup, so the servers' attempts to them end at once.
      const stalling: StallingReceiver[] = [];
      for (const kind of ['hang', 'hang', 'trickle-headers', 'trickle-headers'] as const) {
        const receiver = await startStallingReceiver(kind);
        cleanup.push(() => receiver.close());
        stalling.push(receiver);
        const created = await apis[0]!.subscribe({
          url: receiver.url,
          events: ['message.created'],
        });
        expect(created.status).toBe(201);
      }
      // Each message is two message.created (the question and the reply): 8 deliveries to each stalling
      // receiver, more than its bound, until every server's slots are all theirs (16 at once, 4 each).
      const { maxInFlight, perSubscription } = DEFAULTS.webhooks;
      expect(maxInFlight).toBe(4 * perSubscription);
      await Promise.all(Array.from({ length: 4 }, (_, i) => say(i, `stall ${i}`)));
      const opened = () => stalling.reduce((sum, receiver) => sum + receiver.opened, 0);
      await until(opened, (count) => count >= maxInFlight * setup.servers);

      const healthy = await startReceiver(() => ({ status: 204 }));
      cleanup.push(() => healthy.close());
      const created = await apis[0]!.subscribe({ url: healthy.url, events: ['message.created'] });
      expect(created.status).toBe(201);
      const asked = await Promise.all(Array.from({ length: 12 }, (_, i) => say(i, `fine ${i}`)));
      expect(asked.map((answer) => answer.status)).toEqual(Array.from({ length: 12 }, () => 200));

      await until(
        () => new Set(healthy.received.map((request) => request.id)).size,
        (count) => count >= 24,
        HEALTHY_WITHIN_MS,
      );
      // Not one stalled attempt has ended yet: the healthy deliveries did not wait for their deadline.
      expect(stalling.map((receiver) => receiver.closedBySender)).toEqual([0, 0, 0, 0]);
      // Each stalling receiver still has at most its bound per server.
      for (const receiver of stalling) {
        expect(receiver.opened).toBeLessThanOrEqual(perSubscription * setup.servers);
      }
      expect(healthy.received).toHaveLength(24);
    },
    120_000,
  );
});

describe('the deadline of one attempt', () => {
  it('ends an attempt whose receiver trickles its headers or its body, however steadily', async () => {
    const server = await startTestServer({
      webhooks: { ...WEBHOOKS, timeoutMs: 1500, retryDelaysMs: [] },
    });
    cleanup.push(async () => server[Symbol.asyncDispose]());
    const api = client(server.url);
    const receivers = [
      await startStallingReceiver('trickle-headers', 50),
      await startStallingReceiver('trickle-body', 50),
    ];
    const ids: string[] = [];
    for (const receiver of receivers) {
      cleanup.push(() => receiver.close());
      const created = await api.subscribe({ url: receiver.url, events: ['message.created'] });
      ids.push((created.body.data as { id: string }).id);
    }
    expect((await api.say(randomUUID(), 'hello')).status).toBe(200);
    // Each trickle would last minutes (a 240-byte head, a 1 MB body, a byte every 50 ms, an idle gap of
    // never more than 50 ms): only a deadline for the whole attempt ends it.
    const [headers, body] = await Promise.all(
      ids.map((id) =>
        until(
          async () =>
            (await api.call('GET', `/api/webhooks/${id}/deliveries`)).body.data as {
              status: string;
              attempts: { responseStatus: number | null; error: string | null }[];
            }[],
          (list) => list.length === 2 && list.every((delivery) => delivery.status !== 'pending'),
        ),
      ),
    );
    for (const delivery of headers!) {
      expect(delivery.status).toBe('dead');
      expect(delivery.attempts).toMatchObject([{ responseStatus: null, error: 'timed out' }]);
    }
    // A receiver that answered 200 took the delivery, however slowly it sends the rest.
    for (const delivery of body!) {
      expect(delivery.status).toBe('delivered');
      expect(delivery.attempts).toMatchObject([{ responseStatus: 200 }]);
    }
    // The sender ended every connection it opened (undici may open one more, unused, after an abort).
    for (const receiver of receivers) {
      await until(
        () => [receiver.opened, receiver.closedBySender],
        ([opened, closed]) => closed! >= 2 && closed === opened,
      );
    }
  });
});
