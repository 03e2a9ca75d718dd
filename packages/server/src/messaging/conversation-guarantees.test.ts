import { createHash, randomUUID } from 'node:crypto';
import { SOCKET_MESSAGE_TYPE, type SocketAck } from '@parley/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { copyPGliteTemplate, databaseKinds } from '../../test/databases';
import { ScriptedModel, deferred } from '../../test/scripted-model';
import { connectClient, joinRoom, type TestSocket } from '../../test/socket-client';
import { parseSse } from '../../test/sse';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createServer } from '../create-server';
import { createLogger } from '../logger';
import { createOpenAICompatibleModel } from '../models';
import { startFakeOpenAIServer } from '../models/testing/fake-openai-server';

/**
 * The conversation entry's guarantees, attacked from outside over real HTTP and real sockets: requests
 * released together (Promise.all), keys and ids tried from another channel and another client, and payloads
 * no schema should ever see.
 */

const channelPath = (channelId: string) => `/api/messaging/channels/${channelId}/messages`;

function poster(url: () => string) {
  return (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
}

async function historyOf(url: string, channelId: string) {
  const response = await fetch(`${url}${channelPath(channelId)}?limit=200`);
  return ((await response.json()) as { data: { messages: { id: string; content: string }[] } }).data
    .messages;
}

const countBy = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, status) => {
    counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }, {});

const postgres = (await databaseKinds()).find((kind) => kind.name === 'postgres')!;

// Hundreds of requests and sockets released together: each test waits on events, and may take many times its
// idle duration beside another `check` on two cores (seen: past the 20 s default), so its bound is generous.
const BUSY_MACHINE = { timeout: 120_000 };

describe('queue bounds hold when requests arrive together', BUSY_MACHINE, () => {
  const model = new ScriptedModel();
  let test: TestServer;
  const post = poster(() => test.url);
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    test = await startTestServer({
      model,
      replyLimits: { maxQueuedPerChannel: 16, maxQueuedTotal: 100 },
      socketRateLimit: { burst: 400, perSecond: 200 },
    });
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.disconnect();
  });

  it('REST: 200 messages at once into one channel: 16 accepted, the rest 429, and only 16 stored', async () => {
    const gate = deferred();
    model.behaviour = { gate: gate.promise };
    const channelId = randomUUID();
    try {
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          post(channelPath(channelId), { text: `m${i}`, entityId: 'u', mode: 'websocket' }),
        ),
      );
      expect(countBy(responses.map((r) => r.status))).toEqual({ 202: 16, 429: 184 });
      expect(await historyOf(test.url, channelId)).toHaveLength(16);
    } finally {
      gate.resolve();
    }
    // The 16 replies, and nothing more.
    await expect
      .poll(async () => (await historyOf(test.url, channelId)).length, { timeout: 30_000 })
      .toBe(32);
  });

  it('REST: 150 messages at once into 150 channels: the server-wide bound (100) holds, the rest 503', async () => {
    const gate = deferred();
    model.behaviour = { gate: gate.promise };
    const channels = Array.from({ length: 150 }, () => randomUUID());
    try {
      const responses = await Promise.all(
        channels.map((id) =>
          post(channelPath(id), { text: 'hi', entityId: 'u', mode: 'websocket' }),
        ),
      );
      expect(countBy(responses.map((r) => r.status))).toEqual({ 202: 100, 503: 50 });
    } finally {
      gate.resolve();
    }
    // Every accepted reply ends (so the next test starts with an empty queue).
    await expect
      .poll(
        async () => {
          const lengths = await Promise.all(channels.map((id) => historyOf(test.url, id)));
          return lengths.reduce((sum, messages) => sum + messages.length, 0);
        },
        { timeout: 30_000 },
      )
      .toBe(200);
  });

  it('socket: 100 messages at once from 10 sockets into one room: 16 acknowledged, the rest RATE_LIMITED', async () => {
    const gate = deferred();
    model.behaviour = { gate: gate.promise };
    const roomId = randomUUID();
    try {
      const clients = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const socket = await connectClient(test.url, 'websocket');
          sockets.push(socket);
          await joinRoom(socket, roomId, `user-${i}`);
          return { socket, entityId: `user-${i}` };
        }),
      );
      const acks: SocketAck[] = await Promise.all(
        clients.flatMap(({ socket, entityId }) =>
          Array.from({ length: 10 }, (_, i) =>
            socket.emitWithAck('message', {
              type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
              payload: { roomId, senderId: entityId, senderName: entityId, message: `m${i}` },
            }),
          ),
        ),
      );
      const outcomes = acks.map((ack) => (ack.status === 'ok' ? 'ok' : ack.error.code));
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(16);
      expect(outcomes.filter((o) => o === 'RATE_LIMITED')).toHaveLength(84);
      expect(await historyOf(test.url, roomId)).toHaveLength(16);
    } finally {
      gate.resolve();
    }
    await expect
      .poll(async () => (await historyOf(test.url, roomId)).length, { timeout: 30_000 })
      .toBe(32);
  });
});

describe('idempotency keys are exact and private', BUSY_MACHINE, () => {
  it('20 tries at once with one key: one message, one reply, one model call, the same answer to all', async () => {
    await using upstream = await startFakeOpenAIServer({ reply: 'Exactly once.', chunkDelayMs: 5 });
    await using test = await startTestServer({
      model: createOpenAICompatibleModel({
        baseUrl: upstream.url,
        model: 'fake',
        timeoutMs: 10_000,
      }),
    });
    const post = poster(() => test.url);
    const channelId = randomUUID();
    const key = { 'idempotency-key': 'order-42' };
    const body = { text: 'Book the table', entityId: 'user-1', mode: 'sync' };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post(channelPath(channelId), body, key)),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const answers = (await Promise.all(responses.map((r) => r.json()))) as {
      userMessage: { id: string };
      replyId: string;
      agentResponse: { text: string };
    }[];
    expect(new Set(answers.map((a) => a.userMessage.id)).size).toBe(1);
    expect(new Set(answers.map((a) => a.replyId)).size).toBe(1);
    expect(answers[0]!.agentResponse.text).toBe('Exactly once.');
    expect((await historyOf(test.url, channelId)).map((m) => m.content)).toEqual([
      'Exactly once.',
      'Book the table',
    ]);
    expect(upstream.requests).toBe(1);
  });

  it('two tries at once asking different things under one key: one is taken, the other is a 409', async () => {
    await using test = await startTestServer({ model: new ScriptedModel() });
    const post = poster(() => test.url);
    const channelId = randomUUID();
    const key = { 'idempotency-key': randomUUID() };
    const base = { text: 'same text', entityId: 'u', mode: 'websocket' };
    const responses = await Promise.all([
      post(channelPath(channelId), { ...base, metadata: { a: 1 } }, key),
      post(channelPath(channelId), { ...base, metadata: { a: 2 } }, key),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([202, 409]);
    expect(await historyOf(test.url, channelId)).toHaveLength(1);
  });

  it('keys are scoped to the channel and the client: another one using your key first changes nothing for you', async () => {
    await using test = await startTestServer({ model: new ScriptedModel() });
    const post = poster(() => test.url);
    const key = { 'idempotency-key': 'next-key-7' };
    const mine = randomUUID();
    const theirs = randomUUID();
    // Another client takes the key first, in its own channel, and in mine as another entity.
    expect(
      (await post(channelPath(theirs), { text: 'x', entityId: 'mallory', mode: 'websocket' }, key))
        .status,
    ).toBe(202);
    expect(
      (await post(channelPath(mine), { text: 'y', entityId: 'mallory', mode: 'websocket' }, key))
        .status,
    ).toBe(202);
    // Then my real request, twice: taken once, not a 409.
    const body = { text: 'my real message', entityId: 'alice', mode: 'websocket' };
    const first = await post(channelPath(mine), body, key);
    const again = await post(channelPath(mine), body, key);
    expect([first.status, again.status]).toEqual([202, 202]);
    const [a, b] = (await Promise.all([first.json(), again.json()])) as {
      userMessage: { id: string };
    }[];
    expect(b!.userMessage.id).toBe(a!.userMessage.id);
    expect((await historyOf(test.url, mine)).map((m) => m.content).sort()).toEqual([
      'Hello there!',
      'Hello there!',
      'my real message',
      'y',
    ]);

    // Submit keys too: another author's key in the same channel is not mine.
    const submit = (author: string, content: string) =>
      post('/api/messaging/submit', { channel_id: mine, author_id: author, content }, key);
    expect((await submit('bot-a', 'from a')).status).toBe(201);
    expect((await submit('bot-b', 'from b')).status).toBe(201);
  });

  it('ids cannot be computed from the key: a keyed hash with a secret each database keeps across restarts', async () => {
    const key = 'guessable-key-1';
    const oldId = (() => {
      const hex = createHash('sha256').update(`parley:channel-message:${key}`).digest('hex');
      const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    })();
    const channelId = randomUUID();
    const body = { text: 'hello', entityId: 'u', mode: 'sync' };
    const database = await copyPGliteTemplate();
    const other = await copyPGliteTemplate();
    const model = new ScriptedModel();
    const start = async (location: typeof database.location) => {
      const server = createServer({
        port: 0,
        logger: createLogger('silent'),
        env: {},
        model,
        database: location,
      });
      const { url } = await server.start();
      return { server, post: poster(() => url), url };
    };
    type Answer = { userMessage: { id: string }; replyId: string };
    try {
      const first = await start(database.location);
      const answer = (await (
        await first.post(channelPath(channelId), body, { 'idempotency-key': key })
      ).json()) as Answer;
      await first.server.stop();
      expect(answer.userMessage.id).not.toBe(oldId);

      // After a restart on the same database: the same id, the same reply, no second model call.
      const calls = model.requests.length;
      const restarted = await start(database.location);
      const again = (await (
        await restarted.post(channelPath(channelId), body, { 'idempotency-key': key })
      ).json()) as Answer;
      expect(again).toMatchObject({
        userMessage: { id: answer.userMessage.id },
        replyId: answer.replyId,
      });
      expect(model.requests.length).toBe(calls);
      await restarted.server.stop();

      // Another database (another secret): another id for the same channel, client and key.
      const elsewhere = await start(other.location);
      const there = (await (
        await elsewhere.post(channelPath(channelId), body, { 'idempotency-key': key })
      ).json()) as Answer;
      expect(there.userMessage.id).not.toBe(answer.userMessage.id);
      await elsewhere.server.stop();
    } finally {
      await database.dispose();
      await other.dispose();
    }
  });

  it.skipIf(postgres.skip)(
    'two processes on one PostgreSQL, tries at once: one message, one reply, one model call',
    async () => {
      const database = await postgres.create();
      const model = new ScriptedModel();
      const servers = [0, 1].map(() =>
        createServer({
          port: 0,
          logger: createLogger('silent'),
          env: {},
          model,
          database: database.location,
        }),
      );
      try {
        const urls: string[] = [];
        for (const server of servers) urls.push((await server.start()).url);
        const channelId = randomUUID();
        const body = { text: 'cluster', entityId: 'u', mode: 'sync' };
        const key = { 'idempotency-key': randomUUID() };
        // Three tries at each process, released together.
        const responses = await Promise.all(
          urls.flatMap((url) =>
            [0, 1, 2].map(() => poster(() => url)(channelPath(channelId), body, key)),
          ),
        );
        expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
        const answers = (await Promise.all(responses.map((r) => r.json()))) as {
          userMessage: { id: string };
          replyId: string;
        }[];
        expect(new Set(answers.map((a) => a.userMessage.id)).size).toBe(1);
        expect(new Set(answers.map((a) => a.replyId)).size).toBe(1);
        expect(model.requests).toHaveLength(1);
        expect(await historyOf(urls[0]!, channelId)).toHaveLength(2);
        // One after the other, the other process answers what the first stored.
        const later = (await (
          await poster(() => urls[1]!)(channelPath(channelId), body, key)
        ).json()) as { replyId: string };
        expect(later.replyId).toBe(answers[0]!.replyId);
      } finally {
        for (const server of servers) await server.stop();
        await database.dispose();
      }
    },
  );
});

describe("a reply's events are readable only as that reply, through its channel", () => {
  const model = new ScriptedModel();
  let test: TestServer;
  const post = poster(() => test.url);
  beforeAll(async () => {
    test = await startTestServer({ model });
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  it("POST into channel B with the Last-Event-ID of channel A's reply is a 404, running or stored", async () => {
    const gate = deferred();
    model.behaviour = { gate: gate.promise, reply: 'secret of A' };
    const channelA = randomUUID();
    const channelB = randomUUID();
    const accepted = (await (
      await post(channelPath(channelA), { text: 'hi', entityId: 'alice', mode: 'websocket' })
    ).json()) as { replyId: string };
    const resumeInB = () =>
      fetch(`${test.url}${channelPath(channelB)}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'last-event-id': `${accepted.replyId}:-1:0`,
        },
        body: JSON.stringify({ text: 'hi', entityId: 'mallory', mode: 'stream' }),
      });
    const whileRunning = await resumeInB();
    expect(whileRunning.status).toBe(404);
    expect(await whileRunning.text()).not.toContain('secret of A');
    gate.resolve();
    await expect
      .poll(async () => (await historyOf(test.url, channelA)).map((m) => m.content))
      .toContain('secret of A');
    // Finished, and (after the linger) from storage: still not through another channel.
    const stored = await resumeInB();
    expect(stored.status).toBe(404);
    expect(await stored.text()).not.toContain('secret of A');
    // Through its own channel it resumes.
    const own = await fetch(`${test.url}${channelPath(channelA)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'last-event-id': `${accepted.replyId}:-1:0` },
      body: '{}',
    });
    expect(parseSse(await own.text()).at(-1)).toMatchObject({
      event: 'done',
      data: { text: 'secret of A' },
    });
  });

  it("GET /replies/{id}/events with a user message's id is a 404, not the message", async () => {
    model.behaviour = {};
    const channelId = randomUUID();
    const answer = (await (
      await post(channelPath(channelId), {
        text: 'my private words',
        entityId: 'alice',
        mode: 'sync',
      })
    ).json()) as { userMessage: { id: string }; replyId: string };
    for (const query of ['', '?lastEventId=' + `${answer.userMessage.id}:-1:0`]) {
      const response = await fetch(
        `${test.url}/api/messaging/replies/${answer.userMessage.id}/events${query}`,
      );
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('my private words');
    }
    // The reply itself is readable by its id.
    const reply = await fetch(`${test.url}/api/messaging/replies/${answer.replyId}/events`);
    expect(parseSse(await reply.text()).at(-1)).toMatchObject({ event: 'done' });
  });
});

describe('deeply nested socket payloads are a validation error, not INTERNAL', () => {
  let test: TestServer;
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    test = await startTestServer({
      model: new ScriptedModel(),
      socketMaxMessageBytes: 1024 * 1024,
      socketRateLimit: { burst: 400, perSecond: 200 },
    });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    await test?.[Symbol.asyncDispose]();
  });
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  let ackId = 900;

  /**
   * Sends an event as raw socket.io text, as an attacker's client would: socket.io-client itself cannot encode
   * such a payload (it walks it recursively looking for binaries). Resolves with the acknowledgment.
   */
  function rawEmit(socket: TestSocket, event: string, json: string): Promise<unknown> {
    const engine = socket.io.engine as unknown as {
      on(event: 'packet', listener: (packet: { type: string; data?: unknown }) => void): void;
      off(event: 'packet', listener: (packet: { type: string; data?: unknown }) => void): void;
      write(data: string): void;
    };
    const id = (ackId += 1);
    const prefix = `3${id}`;
    return new Promise((resolve) => {
      const onPacket = (packet: { type: string; data?: unknown }) => {
        if (packet.type !== 'message' || typeof packet.data !== 'string') return;
        if (!packet.data.startsWith(prefix)) return;
        engine.off('packet', onPacket);
        resolve((JSON.parse(packet.data.slice(prefix.length)) as unknown[])[0]);
      };
      engine.on('packet', onPacket);
      engine.write(`2${id}${JSON.stringify([event]).slice(0, -1)},${json}]`);
    });
  }

  for (const levels of [5_000, 20_000]) {
    it(`${levels} levels in message, leaveRoom and typing: BAD_REQUEST, and the socket goes on`, async () => {
      const socket = await connectClient(test.url, 'websocket');
      sockets.push(socket);
      const roomId = randomUUID();
      await joinRoom(socket, roomId, 'u');
      const nested = deep(levels);
      const answers = await Promise.all([
        rawEmit(socket, 'message', nested),
        rawEmit(
          socket,
          'message',
          `{"type":2,"payload":{"roomId":"${roomId}","senderId":"u","senderName":"u","message":"x","metadata":{"deep":${nested}}}}`,
        ),
        rawEmit(socket, 'leaveRoom', `{"roomId":"${roomId}","deep":${nested}}`),
      ]);
      for (const answer of answers) {
        expect(answer).toMatchObject({ status: 'error', error: { code: 'BAD_REQUEST' } });
      }
      const typingError = new Promise<unknown>((resolve) => socket.once('messageError', resolve));
      (socket.io.engine as unknown as { write(data: string): void }).write(
        `2["typing",{"roomId":"${roomId}","userId":"u","isTyping":true,"deep":${nested}}]`,
      );
      expect(await typingError).toMatchObject({ code: 'BAD_REQUEST' });
      // Still served.
      const ok: SocketAck = await socket.emitWithAck('message', {
        type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
        payload: { roomId, senderId: 'u', senderName: 'u', message: 'still here' },
      });
      expect(ok.status).toBe('ok');
    });
  }
});
