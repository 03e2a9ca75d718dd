import { randomUUID } from 'node:crypto';
import { SOCKET_MESSAGE_TYPE, type SocketAck } from '@parley/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresUnavailableReason, createPostgresDatabase } from '../../test/databases';
import { connectClient, joinRoom, nextEvent, type TestSocket } from '../../test/socket-client';
import { parseSse } from '../../test/sse';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createServer, type ParleyServer, type ServerOptions } from '../create-server';
import { createLogger } from '../logger';
import { createOpenAICompatibleModel } from '../models';
import {
  type FakeChatMessage,
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from '../models/testing/fake-openai-server';

/**
 * Reply control from outside: cancel over HTTP and the socket, `ifBusy` in every delivery mode, across two
 * processes on PostgreSQL, against an OpenAI-compatible upstream that streams slowly (a reply takes ~20 s to
 * finish on its own, so an upstream request that ends early was aborted).
 */

/** A slow upstream that records how each request ended and what each one asked. */
interface SlowUpstream {
  server: FakeOpenAIServer;
  ends: { outcome: 'completed' | 'aborted'; at: number }[];
  prompts: FakeChatMessage[][];
  /** Resolves at the next request end after this call. */
  nextEnd(): Promise<{ outcome: 'completed' | 'aborted'; at: number }>;
}

async function slowUpstream(): Promise<SlowUpstream> {
  const ends: SlowUpstream['ends'] = [];
  const prompts: FakeChatMessage[][] = [];
  let waiters: ((end: SlowUpstream['ends'][number]) => void)[] = [];
  const server = await startFakeOpenAIServer({
    reply: (messages) => {
      prompts.push(messages);
      return 'word '.repeat(200);
    },
    chunkSize: 5,
    chunkDelayMs: 100,
    onRequestEnd: (outcome) => {
      const end = { outcome, at: Date.now() };
      ends.push(end);
      const ready = waiters;
      waiters = [];
      for (const resolve of ready) resolve(end);
    },
  });
  return {
    server,
    ends,
    prompts,
    nextEnd: () => new Promise((resolve) => waiters.push(resolve)),
  };
}

/** The model of a test server, answering through `upstream`. */
const slowModel = (upstream: SlowUpstream) =>
  createOpenAICompatibleModel({ baseUrl: upstream.server.url, model: 'fake', timeoutMs: 60_000 });

/**
 * A server answering through a slow upstream for the tests of one `describe`: started before them, closed after
 * them; the sockets a test keeps in `sockets` are disconnected after it.
 */
function slowServer(options: Omit<ServerOptions, 'model'> = {}) {
  const context = {
    upstream: undefined as unknown as SlowUpstream,
    test: undefined as unknown as TestServer,
    sockets: [] as TestSocket[],
  };
  beforeAll(async () => {
    context.upstream = await slowUpstream();
    context.test = await startTestServer({ model: slowModel(context.upstream), ...options });
  });
  afterEach(() => {
    for (const socket of context.sockets.splice(0)) socket.disconnect();
  });
  afterAll(async () => {
    await context.test?.[Symbol.asyncDispose]();
    await context.upstream?.server.close();
  });
  return context;
}

const channelPath = (base: string, channelId: string) =>
  `${base}/api/messaging/channels/${channelId}/messages`;

const post = (base: string, channelId: string, body: Record<string, unknown>) =>
  fetch(channelPath(base, channelId), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ entityId: 'user-1', ...body }),
  });

// No body (a Content-Type is not needed without one; sending it is harmless).
const cancel = (base: string, replyId: string) =>
  fetch(`${base}/api/messaging/replies/${replyId}/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
  });

/** A `stream` request read as it arrives: resolves `firstChunk` at the first chunk event, `events` at the end. */
function openStream(base: string, channelId: string, body: Record<string, unknown> = {}) {
  let markChunk!: () => void;
  const firstChunk = new Promise<void>((resolve) => (markChunk = resolve));
  let replyId!: (id: string) => void;
  const started = new Promise<string>((resolve) => (replyId = resolve));
  const events = (async () => {
    const response = await post(base, channelId, {
      text: 'tell me a story',
      mode: 'stream',
      ...body,
    });
    if (response.status !== 200)
      return { status: response.status, body: await response.json(), events: [] };
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      // A server stopped under an open stream (the end of a failed test) ends it like its end would.
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const parsed = parseSse(text);
      const start = parsed.find((e) => e.event === 'user_message');
      if (start) replyId((start.data as { replyId: string }).replyId);
      if (parsed.some((e) => e.event === 'chunk')) markChunk();
    }
    return { status: 200, body: undefined, events: parseSse(text) };
  })();
  return { firstChunk, started, events };
}

async function historyOf(base: string, channelId: string) {
  const response = await fetch(`${channelPath(base, channelId)}?limit=50`);
  return (
    (await response.json()) as { data: { messages: { content: string; source_type: string }[] } }
  ).data.messages;
}

describe('cancelling a reply on one process', () => {
  const shared = slowServer({ replyLimits: { maxQueuedPerChannel: 1 } });

  it('aborts the upstream request at once; the stream, the room and storage see it cancelled', async () => {
    const channelId = randomUUID();
    const member = await connectClient(shared.test.url, 'websocket');
    shared.sockets.push(member);
    await joinRoom(member, channelId, 'watcher');
    const roomError = nextEvent(member, 'messageError');
    const stream = openStream(shared.test.url, channelId);
    const replyId = await stream.started;
    await stream.firstChunk;

    const ended = shared.upstream.nextEnd();
    const sentAt = Date.now();
    const response = await cancel(shared.test.url, replyId);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({
      success: true,
      data: { replyId, status: 'cancelled' },
    });

    const end = await ended;
    expect(end.outcome).toBe('aborted');
    // The upstream would have streamed for ~20 s more; it closed within a second of the cancel.
    expect(end.at - sentAt).toBeLessThan(1000);

    const { events } = await stream.events;
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toEqual({ code: 'CANCELLED', message: 'The reply was cancelled' });
    expect(events.some((e) => e.event === 'chunk')).toBe(true);
    expect(await roomError).toMatchObject({ code: 'CANCELLED', channelId });

    // Nothing of the cancelled reply is stored: the history holds the user's message only.
    const history = await historyOf(shared.test.url, channelId);
    expect(history.map((m) => m.source_type)).toEqual(['api']);
  });

  it('answers 409 for a reply already ended, 404 for an unknown one, 400 for a bad id', async () => {
    const channelId = randomUUID();
    const stream = openStream(shared.test.url, channelId);
    const replyId = await stream.started;
    expect((await cancel(shared.test.url, replyId)).status).toBe(202);
    await stream.events;
    const again = await cancel(shared.test.url, replyId);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'CONFLICT' } });
    expect((await cancel(shared.test.url, randomUUID())).status).toBe(404);
    expect((await cancel(shared.test.url, 'not-a-uuid')).status).toBe(400);
    // A cross-site page (a foreign Origin) may not stop anyone's reply; the reply is untouched.
    const stream2 = openStream(shared.test.url, channelId);
    const running = await stream2.started;
    const forged = await fetch(`${shared.test.url}/api/messaging/replies/${running}/cancel`, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
    });
    expect(forged.status).toBe(403);
    // A plain POST without a body or Content-Type (curl -X POST) is a cancel.
    const plain = await fetch(`${shared.test.url}/api/messaging/replies/${running}/cancel`, {
      method: 'POST',
    });
    expect(plain.status).toBe(202);
    await stream2.events;
  });

  it('cancels released together: exactly one is 202, the others 409', async () => {
    const channelId = randomUUID();
    const stream = openStream(shared.test.url, channelId);
    const replyId = await stream.started;
    const statuses = (
      await Promise.all(Array.from({ length: 12 }, () => cancel(shared.test.url, replyId)))
    ).map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(11);
    await stream.events;
  });

  it('a cancel storm stalls nothing: every cancel gets a 4xx, a probe is served during and after', async () => {
    const channelId = randomUUID();
    const stream = openStream(shared.test.url, channelId);
    const replyId = await stream.started;
    const storm = Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        cancel(shared.test.url, i % 3 === 0 ? replyId : randomUUID()),
      ),
    );
    const during = await fetch(`${shared.test.url}/api/server/health`);
    const statuses = (await storm).map((r) => r.status);
    expect(during.status).toBe(200);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.every((s) => [202, 404, 409, 429].includes(s))).toBe(true);
    expect((await fetch(`${shared.test.url}/api/server/health`)).status).toBe(200);
    expect((await stream.events).events.at(-1)!.data).toMatchObject({ code: 'CANCELLED' });
  });

  it('a sync request whose reply is cancelled answers 409 CANCELLED', async () => {
    const channelId = randomUUID();
    const member = await connectClient(shared.test.url, 'websocket');
    shared.sockets.push(member);
    await joinRoom(member, channelId, 'watcher');
    const started = nextEvent(member, 'messageStreamChunk');
    const sync = post(shared.test.url, channelId, { text: 'hi', mode: 'sync' });
    const { messageId: replyId } = await started;
    expect((await cancel(shared.test.url, replyId)).status).toBe(202);
    const response = await sync;
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      success: false,
      error: { code: 'CANCELLED', message: 'The reply was cancelled' },
    });
  });

  it('frees the channel queue at once: the next message is admitted and answered', async () => {
    const channelId = randomUUID();
    const first = openStream(shared.test.url, channelId);
    const replyId = await first.started;
    await first.firstChunk;
    // One reply per channel in this server: a second message is refused while the first runs.
    expect((await post(shared.test.url, channelId, { text: 'more' })).status).toBe(429);
    const requestsBefore = shared.upstream.server.requests;
    expect((await cancel(shared.test.url, replyId)).status).toBe(202);
    const next = openStream(shared.test.url, channelId, { text: 'next one' });
    await next.firstChunk;
    expect(shared.upstream.server.requests).toBe(requestsBefore + 1);
    expect((await cancel(shared.test.url, await next.started)).status).toBe(202);
    await Promise.all([first.events, next.events]);
  });

  it('the socket cancels in a room it joined; any other connection is refused', async () => {
    const channelId = randomUUID();
    const stream = openStream(shared.test.url, channelId);
    const replyId = await stream.started;
    const stranger = await connectClient(shared.test.url, 'websocket');
    const member = await connectClient(shared.test.url, 'polling');
    shared.sockets.push(stranger, member);
    const refused: SocketAck = await stranger.emitWithAck('cancelReply', {
      roomId: channelId,
      replyId,
    });
    expect(refused).toMatchObject({ status: 'error', error: { code: 'FORBIDDEN' } });
    await joinRoom(stranger, randomUUID(), 'stranger');
    const otherRoom: SocketAck = await stranger.emitWithAck('cancelReply', {
      roomId: randomUUID(),
      replyId,
    });
    expect(otherRoom).toMatchObject({ status: 'error' });
    await joinRoom(member, channelId, 'user-1');
    const ok: SocketAck = await member.emitWithAck('cancelReply', { roomId: channelId, replyId });
    expect(ok).toEqual({ status: 'ok', roomId: channelId, replyId });
    expect((await stream.events).events.at(-1)!.data).toMatchObject({ code: 'CANCELLED' });
    const bad: SocketAck = await member.emitWithAck('cancelReply', { roomId: channelId } as never);
    expect(bad).toMatchObject({ status: 'error', error: { code: 'BAD_REQUEST' } });
  });
});

describe('ifBusy while a reply to the channel runs', () => {
  const shared = slowServer();

  for (const mode of ['websocket', 'stream', 'sync'] as const) {
    it(`reject (${mode}): 409 CHANNEL_BUSY, nothing stored, the running reply goes on`, async () => {
      const channelId = randomUUID();
      const running = openStream(shared.test.url, channelId);
      const replyId = await running.started;
      const response = await post(shared.test.url, channelId, {
        text: 'second',
        mode,
        ifBusy: 'reject',
      });
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ error: { code: 'CHANNEL_BUSY' } });
      expect((await historyOf(shared.test.url, channelId)).map((m) => m.content)).toEqual([
        'tell me a story',
      ]);
      expect((await cancel(shared.test.url, replyId)).status).toBe(202);
      await running.events;
      // Idle again: the same message is taken.
      const idle = await post(shared.test.url, channelId, {
        text: 'second',
        mode: 'websocket',
        ifBusy: 'reject',
      });
      expect(idle.status).toBe(202);
      const { replyId: idleReply } = (await idle.json()) as { replyId: string };
      expect((await cancel(shared.test.url, idleReply)).status).toBe(202);
    });

    it(`interrupt (${mode}): the running reply ends CANCELLED; the new one sees both messages`, async () => {
      const channelId = randomUUID();
      const running = openStream(shared.test.url, channelId, { text: `first ${mode}` });
      await running.started;
      await running.firstChunk;
      const promptsBefore = shared.upstream.prompts.length;
      const second =
        mode === 'stream'
          ? openStream(shared.test.url, channelId, { text: `second ${mode}`, ifBusy: 'interrupt' })
          : undefined;
      const response =
        mode === 'stream'
          ? undefined
          : post(shared.test.url, channelId, { text: `second ${mode}`, mode, ifBusy: 'interrupt' });
      expect((await running.events).events.at(-1)!.data).toMatchObject({ code: 'CANCELLED' });
      // The new reply's model request carries both user messages.
      await expect.poll(() => shared.upstream.prompts.length).toBeGreaterThan(promptsBefore);
      const prompt = JSON.stringify(shared.upstream.prompts.at(-1));
      expect(prompt).toContain(`first ${mode}`);
      expect(prompt).toContain(`second ${mode}`);
      const newReply = second ? await second.started : undefined;
      if (mode === 'websocket') {
        const body = (await (await response!).json()) as { replyId: string };
        expect((await cancel(shared.test.url, body.replyId)).status).toBe(202);
      } else if (mode === 'stream') {
        expect((await cancel(shared.test.url, newReply!)).status).toBe(202);
        await second!.events;
      } else {
        // sync waits for the reply: interrupt it in turn, and it answers CANCELLED.
        const third = await post(shared.test.url, channelId, {
          text: 'third',
          ifBusy: 'interrupt',
        });
        expect(third.status).toBe(202);
        expect(await (await response!).json()).toMatchObject({
          error: { code: 'CANCELLED' },
        });
        await cancel(shared.test.url, ((await third.json()) as { replyId: string }).replyId);
      }
    });
  }

  it('socket: reject answers CHANNEL_BUSY in the ack; interrupt cancels the running reply', async () => {
    const channelId = randomUUID();
    const socket = await connectClient(shared.test.url, 'websocket');
    shared.sockets.push(socket);
    await joinRoom(socket, channelId, 'user-1');
    const running = openStream(shared.test.url, channelId);
    await running.started;
    const send = (message: string, ifBusy: string) =>
      socket.emitWithAck('message', {
        type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
        payload: {
          roomId: channelId,
          senderId: 'user-1',
          senderName: 'U',
          message,
          ifBusy,
        } as never,
      });
    expect(await send('nope', 'reject')).toMatchObject({
      status: 'error',
      error: { code: 'CHANNEL_BUSY' },
    });
    const chunk = nextEvent(socket, 'messageStreamChunk', (c) => c.messageId !== undefined);
    expect(await send('instead', 'interrupt')).toMatchObject({ status: 'ok' });
    expect((await running.events).events.at(-1)!.data).toMatchObject({ code: 'CANCELLED' });
    const { messageId } = await chunk;
    await cancel(shared.test.url, messageId);
  });

  it("an agent's character sets the default", async () => {
    const agentUpstream = await slowUpstream();
    await using strict = await startTestServer({
      model: slowModel(agentUpstream),
      characters: [{ name: 'Strict', ifBusy: 'reject' }],
    });
    try {
      const channelId = randomUUID();
      const running = openStream(strict.url, channelId);
      const replyId = await running.started;
      const busy = await post(strict.url, channelId, { text: 'again' });
      expect(busy.status).toBe(409);
      expect(await busy.json()).toMatchObject({ error: { code: 'CHANNEL_BUSY' } });
      // The message's own ifBusy wins over the character's.
      const queued = await post(strict.url, channelId, { text: 'again', ifBusy: 'enqueue' });
      expect(queued.status).toBe(202);
      await cancel(strict.url, replyId);
      await cancel(strict.url, ((await queued.json()) as { replyId: string }).replyId);
      await running.events;
    } finally {
      await agentUpstream.server.close();
    }
  });
});

describe.skipIf(await postgresUnavailableReason())(
  'reply control across two processes on PostgreSQL',
  () => {
    it('a cancel sent to the other process reaches the one running the reply', async () => {
      const upstream = await slowUpstream();
      const database = await createPostgresDatabase();
      const servers: ParleyServer[] = [0, 1].map(() =>
        createServer({
          port: 0,
          logger: createLogger('silent'),
          env: {},
          model: slowModel(upstream),
          database: database.location,
        }),
      );
      try {
        const [a, b] = [(await servers[0]!.start()).url, (await servers[1]!.start()).url];
        const channelId = randomUUID();
        const stream = openStream(a, channelId);
        const replyId = await stream.started;
        await stream.firstChunk;
        const ended = upstream.nextEnd();
        const sentAt = Date.now();
        const response = await cancel(b, replyId);
        expect(response.status).toBe(202);
        const end = await ended;
        expect(end.outcome).toBe('aborted');
        expect(end.at - sentAt).toBeLessThan(1000);
        expect((await stream.events).events.at(-1)!.data).toMatchObject({ code: 'CANCELLED' });
        // Both processes now answer 409 for it, and 404 for a reply nobody has.
        expect((await cancel(b, replyId)).status).toBe(409);
        expect((await cancel(a, replyId)).status).toBe(409);
        expect((await cancel(b, randomUUID())).status).toBe(404);

        // ifBusy across processes: reject at B while A runs; interrupt at B cancels A's reply.
        const other = randomUUID();
        const running = openStream(a, other, { text: 'first' });
        await running.firstChunk;
        const rejected = await post(b, other, { text: 'second', ifBusy: 'reject' });
        expect(rejected.status).toBe(409);
        const interrupting = await post(b, other, { text: 'second', ifBusy: 'interrupt' });
        expect(interrupting.status).toBe(202);
        expect((await running.events).events.at(-1)!.data).toMatchObject({ code: 'CANCELLED' });
        const { replyId: newReply } = (await interrupting.json()) as { replyId: string };
        expect((await cancel(a, newReply)).status).toBe(202);
      } finally {
        for (const server of servers) await server.stop();
        await database.dispose();
        await upstream.server.close();
      }
    });
  },
);

describe('resuming tells the truth', () => {
  it('a Last-Event-ID outside what is retained gets a gap event before what follows; one inside, none', async () => {
    await using test = await startTestServer();
    const channelId = randomUUID();
    const sync = await post(test.url, channelId, { text: 'hello there', mode: 'sync' });
    expect(sync.status).toBe(200);
    const { replyId, agentResponse } = (await sync.json()) as {
      replyId: string;
      agentResponse: { text: string };
    };
    const resume = async (lastEventId: string) =>
      parseSse(
        await (
          await fetch(`${test.url}/api/messaging/replies/${replyId}/events`, {
            headers: { 'last-event-id': lastEventId },
          })
        ).text(),
      );
    const beyond = await resume(`${replyId}:999:99999`);
    expect(beyond.map((e) => e.event)).toEqual(['gap', 'done']);
    expect(beyond[0]!.data).toMatchObject({ replyId, from: `${replyId}:999:99999` });
    expect(beyond[1]!.data).toMatchObject({ text: agentResponse.text });
    // From the start: the whole reply, and no gap.
    const whole = await resume(`${replyId}:-1:0`);
    expect(whole.map((e) => e.event)).not.toContain('gap');
    expect(whole.at(-1)!.event).toBe('done');
  });
});
