/* eslint-disable @typescript-eslint/no-unsafe-return --
   answers are read as the wire gives them; each test names the fields it checks. */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { startTestServer } from '../../test/test-server';
import { client, until } from './test-support';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0).reverse()) await dispose();
});

/**
 * A receiver that is gone: it keeps the first request it gets waiting until the test lets it answer `410 Gone`;
 * requests that reach it meanwhile (claimed and sent together with the first) wait until the test has seen the
 * subscription disabled, then answer 503 with `Retry-After: 0`, asking for a retry that must never come. Every
 * request that arrives after the test has seen the subscription disabled is counted: there must be none.
 */
async function startGoneReceiver() {
  let first: ServerResponse | undefined;
  const waiting: ServerResponse[] = [];
  const state = { arrived: 0, held: 0, afterDisabled: 0, disabledSeen: false };
  const server = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => {
      state.arrived += 1;
      if (state.disabledSeen) {
        state.afterDisabled += 1;
        response.writeHead(200).end('ok');
      } else if (!first) {
        first = response;
      } else {
        state.held += 1;
        waiting.push(response);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    state,
    gone: () => first?.writeHead(410).end('gone'),
    disabledSeen: () => {
      state.disabledSeen = true;
      for (const response of waiting.splice(0)) {
        response.writeHead(503, { 'retry-after': '0' }).end('busy');
      }
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.each(await databaseKinds())(
  'a receiver that answers 410 Gone on $name',
  ({ create, skip }) => {
    it.skipIf(skip)(
      'no delivery reaches it after its subscription is disabled, those claimed with the first included',
      async () => {
        const receiver = await startGoneReceiver();
        cleanup.push(() => receiver.close());
        const server = await startTestServer(
          {
            webhooks: {
              retryDelaysMs: [20, 20, 20, 20],
              privateTargets: ['127.0.0.1'],
              timeoutMs: 20_000,
              pollMs: 20,
              perSubscription: 4,
            },
          },
          await create(),
        );
        cleanup.push(async () => server[Symbol.asyncDispose]());
        const api = client(server.url);
        const { id } = (await api.subscribe({ url: receiver.url, events: ['message.created'] }))
          .body.data as { id: string };

        // Twelve messages, each stored with its reply: 24 deliveries queued behind the first ones under way.
        const asked = await Promise.all(
          Array.from({ length: 12 }, (_, n) => api.say(randomUUID(), `message ${n}`)),
        );
        expect(asked.every((answer) => answer.status === 200)).toBe(true);
        // The first and three more, claimed together (four per subscription at once), reach it and wait.
        await until(
          () => receiver.state.held,
          (held) => held >= 3,
        );
        receiver.gone();
        const subscription = await until(
          async () => (await api.call('GET', `/api/webhooks/${id}`)).body.data,
          (data: { disabledAt: string | null; disabledReason: string | null }) =>
            data.disabledAt !== null,
        );
        expect(subscription.disabledReason).toMatch(/410/);
        receiver.disabledSeen();

        // Every attempt that reached the receiver is recorded, and nothing is pending any more.
        const deliveries = await until(
          async () =>
            (await api.call('GET', `/api/webhooks/${id}/deliveries?limit=100`)).body.data as {
              status: string;
              attempts: { responseStatus: number | null }[];
            }[],
          (list) =>
            list.filter((delivery) => delivery.attempts.length > 0).length >=
              receiver.state.held + 1 && list.every((delivery) => delivery.status !== 'pending'),
        );
        expect(deliveries.length).toBe(24);
        expect(receiver.state.afterDisabled).toBe(0);
        expect(deliveries.filter((delivery) => delivery.status === 'delivered')).toEqual([]);
        expect(deliveries.every((delivery) => delivery.status === 'dead')).toBe(true);
        expect(receiver.state.arrived).toBe(receiver.state.held + 1);
      },
    );
  },
);
