/* eslint-disable @typescript-eslint/no-unsafe-return --
   answers are read as the wire gives them; each test names the fields it checks. */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { startTestServer, type TestServer } from '../../test/test-server';
import { ParleyError } from '@parley/core';
import { ScriptedModel } from '../../test/scripted-model';
import type { ServerOptions } from '../create-server';
import { client, type Receiver, startReceiver, until, verified } from './test-support';

const WEBHOOKS: ServerOptions['webhooks'] = {
  retryDelaysMs: [30, 30, 30],
  privateTargets: ['127.0.0.1'],
  timeoutMs: 2000,
  pollMs: 20,
};

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0).reverse()) await dispose();
});

describe.each(await databaseKinds())('outbound webhooks on $name', ({ create, skip }) => {
  it.skipIf(skip)(
    'a receiver that refuses the first attempts gets every reply.completed once, each verified by standardwebhooks',
    async () => {
      const receiver = await startReceiver((attempt) =>
        attempt < 3 ? { status: 503, headers: { 'retry-after': '0' } } : { status: 200 },
      );
      cleanup.push(() => receiver.close());
      const server = await startTestServer({ webhooks: WEBHOOKS }, await create());
      cleanup.push(async () => server[Symbol.asyncDispose]());
      const api = client(server.url);

      const created = await api.subscribe({ url: receiver.url, events: ['reply.completed'] });
      expect(created.status).toBe(201);
      const { id, secret } = created.body.data as { id: string; secret: string };
      expect(secret).toMatch(/^whsec_/);

      const channelId = randomUUID();
      const asked = await Promise.all(
        ['one', 'two', 'three', 'four', 'five'].map((text) => api.say(channelId, text)),
      );
      expect(asked.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      const messageIds = asked.map((answer) => answer.body.userMessage.id as string).sort();

      const delivered = await until(
        () => receiver.received.filter((request) => request.status === 200),
        (requests) => requests.length >= 5,
      );
      const events = delivered.map((request) =>
        verified<{
          type: string;
          data: {
            channelId: string;
            reply: { in_reply_to: string; content: string };
            message: { content: string };
          };
        }>(secret, request),
      );
      expect(events.every((event) => event.type === 'reply.completed')).toBe(true);
      expect(events.map((event) => event.data.reply.in_reply_to).sort()).toEqual(messageIds);
      expect(events.every((event) => event.data.channelId === channelId)).toBe(true);
      expect(asked.map((answer) => answer.body.agentResponse.text).sort()).toEqual(
        events.map((event) => event.data.reply.content).sort(),
      );
      expect(events.map((event) => event.data.message.content).sort()).toEqual([
        'five',
        'four',
        'one',
        'three',
        'two',
      ]);
      // Three attempts each, all with the delivery's one webhook-id.
      const byId = new Map<string, Receiver['received']>();
      for (const request of receiver.received) {
        byId.set(request.id, [...(byId.get(request.id) ?? []), request]);
      }
      expect([...byId.values()].map((requests) => requests.map((r) => r.status))).toEqual(
        Array.from({ length: 5 }, () => [503, 503, 200]),
      );

      // The receiver keeps a request before it answers; the server records the answer after it
      // arrives, so the listing is read once every delivery has left 'pending'.
      const deliveries = await until(
        () => api.call('GET', `/api/webhooks/${id}/deliveries`),
        (answer) =>
          answer.status !== 200 ||
          (answer.body.data as { status: string }[]).every((d) => d.status !== 'pending'),
      );
      expect(deliveries.status).toBe(200);
      const listed = deliveries.body.data as {
        status: string;
        attempts: { responseStatus: number }[];
      }[];
      expect(listed).toHaveLength(5);
      for (const delivery of listed) {
        expect(delivery.status).toBe('delivered');
        expect(delivery.attempts.map((attempt) => attempt.responseStatus)).toEqual([503, 503, 200]);
      }
      // A little later still nothing more: no delivery is sent twice.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received.filter((request) => request.status === 200)).toHaveLength(5);
    },
  );

  it.skipIf(skip)(
    '410 Gone disables the subscription; later events are not delivered',
    async () => {
      const receiver = await startReceiver(() => ({ status: 410 }));
      cleanup.push(() => receiver.close());
      const server = await startTestServer({ webhooks: WEBHOOKS }, await create());
      cleanup.push(async () => server[Symbol.asyncDispose]());
      const api = client(server.url);
      const { id } = (await api.subscribe({ url: receiver.url, events: ['message.created'] })).body
        .data as { id: string };
      const channelId = randomUUID();
      await api.say(channelId, 'hello');
      const subscription = await until(
        async () => (await api.call('GET', `/api/webhooks/${id}`)).body.data,
        (data: { disabledAt: string | null; disabledReason: string | null }) =>
          data.disabledAt !== null,
      );
      expect(subscription.disabledReason).toMatch(/410/);
      // The user's message and the reply were two deliveries; one may have been under way already.
      await until(
        async () => (await api.call('GET', `/api/webhooks/${id}/deliveries`)).body.data,
        (list: { status: string }[]) => list.every((delivery) => delivery.status === 'dead'),
      );
      const seen = receiver.received.length;
      expect(seen).toBeGreaterThanOrEqual(1);
      await api.say(channelId, 'again');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received.length).toBe(seen);
    },
  );
});

describe('outbound webhooks: subscriptions', () => {
  let server: TestServer;

  it('keeps the secret out of every answer but the first, and out of the log', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'trace' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const receiver = await startReceiver((attempt) => ({ status: attempt === 1 ? 500 : 204 }));
    cleanup.push(() => receiver.close());
    server = await startTestServer({ webhooks: WEBHOOKS, logger });
    cleanup.push(async () => server[Symbol.asyncDispose]());
    const api = client(server.url);
    const created = await api.subscribe({ url: receiver.url, events: ['message.created'] });
    const { id, secret } = created.body.data as { id: string; secret: string };
    await api.say(randomUUID(), 'hi');
    await until(
      () => receiver.received.filter((request) => request.status === 204).length,
      (count) => count >= 2,
    );
    const listed = await api.call('GET', '/api/webhooks');
    const one = await api.call('GET', `/api/webhooks/${id}`);
    const deliveries = await api.call('GET', `/api/webhooks/${id}/deliveries`);
    for (const answer of [listed, one, deliveries]) {
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).not.toContain(secret.slice(6));
    }
    expect(lines.join('')).not.toContain(secret.slice(6));
  });

  it('delivers reply.failed when a reply fails, with the code and the message it answered', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    cleanup.push(() => receiver.close());
    const model = new ScriptedModel();
    model.behaviour = { fail: new ParleyError('MODEL_ERROR', 'The model is down') };
    server = await startTestServer({ webhooks: WEBHOOKS, model });
    cleanup.push(async () => server[Symbol.asyncDispose]());
    const api = client(server.url);
    const { secret } = (await api.subscribe({ url: receiver.url, events: ['reply.failed'] })).body
      .data as { secret: string };
    const channelId = randomUUID();
    const answer = await api.say(channelId, 'hello?');
    expect(answer.status).toBe(502);
    const [request] = await until(
      () => receiver.received,
      (requests) => requests.length >= 1,
    );
    const event = verified<{ type: string; data: Record<string, unknown> }>(secret, request!);
    expect(event.type).toBe('reply.failed');
    const [stored] = (
      (await api.call('GET', `/api/messaging/channels/${channelId}/messages`)).body.data as {
        messages: { id: string }[];
      }
    ).messages;
    expect(event.data).toEqual({
      channelId,
      replyId: expect.any(String) as unknown,
      messageId: stored!.id,
      error: { code: 'MODEL_ERROR', message: 'The model is down' },
      toolCalls: [],
    });
  });

  it('is behind the server token: no subscription can be listed, made, read or removed without it', async () => {
    server = await startTestServer({ webhooks: WEBHOOKS, authToken: 'the-token' });
    cleanup.push(async () => server[Symbol.asyncDispose]());
    const id = randomUUID();
    const attempts = await Promise.all(
      [
        ['GET', '/api/webhooks'],
        ['POST', '/api/webhooks'],
        ['GET', `/api/webhooks/${id}`],
        ['DELETE', `/api/webhooks/${id}`],
        ['GET', `/api/webhooks/${id}/deliveries`],
        ['POST', `/api/webhooks/${id}/deliveries/${randomUUID()}/retry`],
      ].map(([method, path]) =>
        fetch(`${server.url}${path}`, {
          method,
          headers: { 'content-type': 'application/json', 'x-api-key': 'a-guess' },
          ...(method === 'POST'
            ? { body: JSON.stringify({ url: 'http://127.0.0.1/', events: ['reply.failed'] }) }
            : {}),
        }).then((response) => response.status),
      ),
    );
    expect(attempts).toEqual([401, 401, 401, 401, 401, 401]);
    const listed = await fetch(`${server.url}/api/webhooks`, {
      headers: { 'x-api-key': 'the-token' },
    });
    expect(listed.status).toBe(200);
  });

  it('refuses bad subscriptions with a 400 naming the field, and unknown ids with a 404', async () => {
    server = await startTestServer({ webhooks: WEBHOOKS });
    cleanup.push(async () => server[Symbol.asyncDispose]());
    const api = client(server.url);
    const bad = [
      {},
      { url: 'not a url', events: ['reply.completed'] },
      { url: 'ftp://127.0.0.1/', events: ['reply.completed'] },
      { url: 'http://127.0.0.1/', events: [] },
      { url: 'http://127.0.0.1/', events: ['reply.completed', 'reply.completed'] },
      { url: 'http://127.0.0.1/', events: ['message.deleted'] },
      { url: 'http://127.0.0.1/', events: ['reply.failed'], channelId: 'x' },
      { url: 'http://user:pw@127.0.0.1/', events: ['reply.failed'] },
      { url: 'http://127.0.0.1/', events: ['reply.failed'], extra: 1 },
    ];
    for (const body of bad) {
      const answer = await api.subscribe(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('BAD_REQUEST');
    }
    expect((await api.call('GET', `/api/webhooks/${randomUUID()}`)).status).toBe(404);
    expect((await api.call('GET', '/api/webhooks/nope')).status).toBe(400);
    expect((await api.call('DELETE', `/api/webhooks/${randomUUID()}`)).status).toBe(404);
    expect(
      (await api.call('POST', `/api/webhooks/${randomUUID()}/deliveries/${randomUUID()}/retry`))
        .status,
    ).toBe(404);
  });

  it('refuses private, loopback, link-local and metadata targets unless they are listed', async () => {
    server = await startTestServer({ webhooks: { ...WEBHOOKS, privateTargets: [] } });
    cleanup.push(async () => server[Symbol.asyncDispose]());
    const api = client(server.url);
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost:9/hook',
      'http://[::1]:9/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3/',
      'http://192.168.0.1/',
      'http://[::ffff:127.0.0.1]/',
      'http://0.0.0.0/',
    ]) {
      const answer = await api.subscribe({ url, events: ['reply.completed'] });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.message, url).toMatch(/private or reserved|could not be resolved/);
    }
  });

  it('sends one delivery again on request, with the same webhook-id, keeping 2 KB of each answer', async () => {
    const receiver = await startReceiver(() => ({ status: 500, body: 'x'.repeat(100_000) }));
    cleanup.push(() => receiver.close());
    server = await startTestServer({ webhooks: { ...WEBHOOKS, retryDelaysMs: [] } });
    cleanup.push(async () => server[Symbol.asyncDispose]());
    const api = client(server.url);
    const { id } = (await api.subscribe({ url: receiver.url, events: ['message.created'] })).body
      .data as { id: string };
    await api.say(randomUUID(), 'hi');
    const [dead] = await until(
      async () =>
        (await api.call('GET', `/api/webhooks/${id}/deliveries`)).body.data as {
          id: string;
          status: string;
        }[],
      (list) => list.length === 2 && list.every((delivery) => delivery.status === 'dead'),
    );
    if (!dead) throw new Error('no delivery');
    const [kept] = (
      (await api.call('GET', `/api/webhooks/${id}/deliveries`)).body.data as {
        attempts: { responseStatus: number; responseBody: string }[];
      }[]
    )[0]!.attempts;
    expect(kept).toMatchObject({ responseStatus: 500, responseBody: 'x'.repeat(2048) });
    const retried = await api.call('POST', `/api/webhooks/${id}/deliveries/${dead.id}/retry`);
    expect(retried.status).toBe(202);
    const again = await until(
      () => receiver.received.filter((request) => request.id === `msg_${dead.id}`),
      (requests) => requests.length === 2,
    );
    expect(new Set(again.map((request) => request.id)).size).toBe(1);
  });

  it('sends at most the bound to one subscription at once', async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 100 }));
    cleanup.push(() => receiver.close());
    server = await startTestServer({ webhooks: { ...WEBHOOKS, perSubscription: 2 } });
    cleanup.push(async () => server[Symbol.asyncDispose]());
    const api = client(server.url);
    await api.subscribe({ url: receiver.url, events: ['message.created'] });
    await Promise.all(Array.from({ length: 6 }, () => api.say(randomUUID(), 'hi')));
    await until(
      () => receiver.received.length,
      (count) => count >= 12,
    );
    expect(receiver.maxConcurrent).toBe(2);
  });
});

describe('outbound webhooks across processes', async () => {
  const postgres = (await databaseKinds()).find((kind) => kind.name === 'postgres')!;

  it.skipIf(postgres.skip)(
    'three servers on one PostgreSQL deliver each event once, retries included',
    async () => {
      const receiver = await startReceiver((attempt) => ({
        status: attempt === 1 ? 503 : 200,
        delayMs: 20,
      }));
      cleanup.push(() => receiver.close());
      const database = await postgres.create();
      cleanup.push(() => database.dispose());
      const servers: TestServer[] = [];
      for (let i = 0; i < 3; i += 1) {
        // Each its own process's view: its own pool, sequencer, dispatcher and worker id.
        const server = await startTestServer(
          { webhooks: WEBHOOKS },
          { ...database, dispose: () => Promise.resolve() },
        );
        cleanup.push(async () => server[Symbol.asyncDispose]());
        servers.push(server);
      }
      const first = client(servers[0]!.url);
      const { secret } = (
        await first.subscribe({ url: receiver.url, events: ['message.created', 'reply.completed'] })
      ).body.data as { secret: string };

      const channels = [randomUUID(), randomUUID(), randomUUID()];
      const asked = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          client(servers[i % 3]!.url).say(channels[i % 3]!, `message ${i}`),
        ),
      );
      expect(asked.every((answer) => answer.status === 200)).toBe(true);

      // 12 user messages and 12 replies are 24 message.created, and 12 reply.completed: 36 events, each
      // delivered once after one refused attempt.
      const delivered = await until(
        () => receiver.received.filter((request) => request.status === 200),
        (requests) => requests.length >= 36,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ok = receiver.received.filter((request) => request.status === 200);
      expect(ok).toHaveLength(36);
      expect(new Set(ok.map((request) => request.id)).size).toBe(36);
      expect(receiver.received).toHaveLength(72);
      const types = delivered.map((request) => verified<{ type: string }>(secret, request).type);
      expect(types.filter((type) => type === 'reply.completed')).toHaveLength(12);
      expect(types.filter((type) => type === 'message.created')).toHaveLength(24);
    },
  );
});
