import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { startTestServer, type TestServer } from '../../test/test-server';
import type { ServerOptions } from '../create-server';
import { client, startReceiver, until } from './test-support';

const WEBHOOKS: ServerOptions['webhooks'] = {
  retryDelaysMs: [],
  timeoutMs: 2000,
  pollMs: 20,
};

/** A delivery as `GET /api/webhooks/{id}/deliveries` lists it. */
interface Listed {
  id: string;
  status: string;
  attempts: { responseStatus: number | null; error: string | null }[];
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0).reverse()) await dispose();
});

/** A pino logger writing to `lines`. */
function capturingLogger(lines: string[]) {
  return pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
}

describe.each(await databaseKinds())(
  'a private webhook target after its allowance is removed, on $name',
  ({ create, skip }) => {
    it.skipIf(skip)(
      'subscriptions to 127.0.0.1 and [::ffff:127.0.0.1] made while allowed deliver nothing after a restart without the allowance: each attempt is refused, recorded and logged',
      async () => {
        const receiver = await startReceiver(() => ({ status: 200 }));
        cleanup.push(() => receiver.close());
        const database = await create();
        cleanup.push(() => database.dispose());
        const kept = { ...database, dispose: () => Promise.resolve() };
        const port = new URL(receiver.url).port;
        const targets = [`http://127.0.0.1:${port}/hook`, `http://[::ffff:127.0.0.1]:${port}/hook`];

        // Allowed: both subscriptions are made, and both deliver (the targets are reachable).
        const allowed = await startTestServer(
          { webhooks: { ...WEBHOOKS, privateTargets: ['127.0.0.1'] } },
          kept,
        );
        const before = client(allowed.url);
        const ids: string[] = [];
        const secrets: string[] = [];
        for (const url of targets) {
          const created = await before.subscribe({ url, events: ['message.created'] });
          expect(created.status, url).toBe(201);
          const { id, secret } = created.body.data as { id: string; secret: string };
          ids.push(id);
          secrets.push(secret);
        }
        expect((await before.say(randomUUID(), 'while allowed')).status).toBe(200);
        // A user message and its reply, to each of the two subscriptions.
        await until(
          () => receiver.received.length,
          (count) => count >= 4,
        );
        await allowed.server.stop();

        // The same data, without the allowance.
        const lines: string[] = [];
        const restarted: TestServer = await startTestServer(
          { webhooks: WEBHOOKS, logger: capturingLogger(lines) },
          kept,
        );
        cleanup.push(async () => restarted[Symbol.asyncDispose]());
        const after = client(restarted.url);
        const seen = receiver.received.length;
        expect((await after.say(randomUUID(), 'after the restart')).status).toBe(200);

        for (const id of ids) {
          const listed = await until(
            async () =>
              (await after.call('GET', `/api/webhooks/${id}/deliveries`)).body.data as Listed[],
            (list) => list.length === 4 && list.every((delivery) => delivery.status !== 'pending'),
          );
          const refused = listed.filter((delivery) => delivery.status === 'dead');
          expect(refused).toHaveLength(2);
          for (const delivery of refused) {
            expect(delivery.attempts).toHaveLength(1);
            expect(delivery.attempts[0]).toMatchObject({
              responseStatus: null,
              error: expect.stringMatching(/private or reserved address/) as unknown,
            });
            const logged = lines.filter((line) => line.includes(delivery.id));
            expect(logged.join('')).toMatch(/webhook target refused/);
            expect(logged.some((line) => JSON.parse(line).level === 40)).toBe(true);
          }
        }
        expect(receiver.received).toHaveLength(seen);
        for (const secret of secrets) expect(lines.join('')).not.toContain(secret.slice(6));
        expect(lines.join('')).not.toContain('/hook');
        // The server goes on serving.
        expect((await after.call('GET', '/api/webhooks')).status).toBe(200);
      },
      120_000,
    );
  },
);

describe('IPv6 spellings of private addresses', () => {
  it('are refused when subscribing: IPv4-mapped, IPv4-compatible, NAT64, SIIT, 6to4 and Teredo', async () => {
    const server = await startTestServer({ webhooks: WEBHOOKS });
    cleanup.push(async () => server[Symbol.asyncDispose]());
    const api = client(server.url);
    for (const host of [
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::127.0.0.1]',
      '[::7f00:1]',
      '[::10.0.0.1]',
      '[::a9fe:a9fe]',
      '[::ffff:169.254.169.254]',
      '[64:ff9b::7f00:1]',
      '[64:ff9b:1::a00:1]',
      '[::ffff:0:7f00:1]',
      '[2002:7f00:1::1]',
      '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
    ]) {
      const answer = await api.subscribe({
        url: `http://${host}:9/hook`,
        events: ['message.created'],
      });
      expect(answer.status, host).toBe(400);
      expect(answer.body.error.message, host).toMatch(/private or reserved/);
    }
    expect((await api.call('GET', '/api/webhooks')).body.data).toEqual([]);
  });
});
