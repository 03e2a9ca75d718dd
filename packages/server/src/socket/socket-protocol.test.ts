import { randomUUID } from 'node:crypto';
import { ParleyError, SOCKET_MESSAGE_TYPE, type MessageBroadcast } from '@parley/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import { copyPGliteTemplate } from '../../test/databases';
import { ScriptedModel } from '../../test/scripted-model';
import { connectClient, joinRoom, nextEvent, type TestSocket } from '../../test/socket-client';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createServer } from '../create-server';
import { createLogger } from '../logger';

const model = new ScriptedModel();
let test: TestServer;
const open: TestSocket[] = [];

beforeAll(async () => {
  test = await startTestServer({
    model,
    socketMaxMessageBytes: 4096,
    socketRateLimit: { burst: 400, perSecond: 200 },
  });
});
afterAll(async () => {
  await test?.[Symbol.asyncDispose]();
});
beforeEach(() => {
  model.behaviour = {};
});
afterEach(() => {
  for (const socket of open.splice(0)) socket.disconnect();
});

describe.each(['polling', 'websocket'] as const)('event socket over %s', (transport) => {
  const client = async () => {
    const socket = await connectClient(test.url, transport);
    open.push(socket);
    return socket;
  };
  const send = (
    socket: TestSocket,
    roomId: string,
    message: string,
    extra: Record<string, unknown> = {},
  ) =>
    socket.emitWithAck('message', {
      type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
      payload: { senderId: 'user-1', senderName: 'Ada', message, roomId, ...extra },
    });

  it('confirms the connection with its socket id', async () => {
    const socket = await client();
    expect(socket.id).toBeTruthy();
  });

  it('joins a room, tells the other members, and acknowledges', async () => {
    const roomId = randomUUID();
    const first = await client();
    await joinRoom(first, roomId, 'alice');
    const joined = nextEvent(first, 'userJoined');
    const second = await client();
    expect(await joinRoom(second, roomId, 'bob')).toEqual({ status: 'ok', roomId });
    expect(await joined).toEqual({ userId: 'bob', roomId });
  });

  it('broadcasts the user message to every member, then live chunks, the reply, and messageComplete', async () => {
    const roomId = randomUUID();
    model.behaviour = { reply: 'Why do you say that?', chunkSize: 4 };
    const sender = await client();
    const watcher = await client();
    await joinRoom(sender, roomId, 'user-1');
    await joinRoom(watcher, roomId, 'watcher');
    const events: string[] = [];
    const chunks: string[] = [];
    const broadcasts: MessageBroadcast[] = [];
    watcher.on('messageBroadcast', (payload) => {
      events.push('broadcast');
      broadcasts.push(payload);
    });
    watcher.on('messageStreamChunk', (payload) => {
      events.push('chunk');
      chunks.push(payload.chunk);
      expect(payload).toMatchObject({ roomId, channelId: roomId });
    });
    const complete = nextEvent(watcher, 'messageComplete');
    const own = nextEvent(sender, 'messageBroadcast', (m) => m.senderId === 'user-1');
    const messageId = randomUUID();
    const ack = await send(sender, roomId, 'I am sad', { messageId });
    expect(ack).toEqual({ status: 'ok', messageId, roomId });
    expect(await own).toMatchObject({
      id: messageId,
      roomId,
      channelId: roomId,
      senderName: 'Ada',
      text: 'I am sad',
    });
    expect(await complete).toEqual({ messageId, roomId, channelId: roomId });
    expect(events[0]).toBe('broadcast');
    expect(events.at(-1)).toBe('broadcast');
    expect(events.filter((e) => e === 'chunk').length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe('Why do you say that?');
    expect(broadcasts[1]).toMatchObject({
      roomId,
      channelId: roomId,
      senderName: 'Eliza',
      text: 'Why do you say that?',
      inReplyTo: messageId,
      actions: ['REPLY'],
    });
  });

  it('delivers nothing to clients outside the room', async () => {
    const roomId = randomUUID();
    const sender = await client();
    const outsider = await client();
    await joinRoom(sender, roomId, 'user-1');
    await joinRoom(outsider, randomUUID(), 'outsider');
    let received = 0;
    outsider.onAny(() => (received += 1));
    const complete = nextEvent(sender, 'messageComplete');
    await send(sender, roomId, 'hello');
    await complete;
    // A round trip after completion: anything sent to the outsider would have arrived before its ack.
    await joinRoom(outsider, randomUUID(), 'outsider');
    expect(received).toBe(0);
  });

  it('keeps several rooms apart', async () => {
    const [roomA, roomB] = [randomUUID(), randomUUID()];
    const a = await client();
    const b = await client();
    await joinRoom(a, roomA, 'user-1');
    await joinRoom(b, roomB, 'user-1');
    const seenByB: string[] = [];
    b.on('messageBroadcast', (m) => seenByB.push(m.roomId));
    const doneA = nextEvent(a, 'messageComplete');
    const doneB = nextEvent(b, 'messageComplete');
    await send(a, roomA, 'in A');
    await send(b, roomB, 'in B');
    await Promise.all([doneA, doneB]);
    expect(new Set(seenByB)).toEqual(new Set([roomB]));
  });

  it('relays typing to the other members only, and userLeft on leave and on disconnect', async () => {
    const roomId = randomUUID();
    const a = await client();
    const b = await client();
    await joinRoom(a, roomId, 'alice');
    await joinRoom(b, roomId, 'bob');
    let selfTyping = 0;
    a.on('userTyping', () => (selfTyping += 1));
    const typing = nextEvent(b, 'userTyping');
    a.emit('typing', { roomId, userId: 'alice', isTyping: true });
    expect(await typing).toEqual({ roomId, userId: 'alice', isTyping: true });
    expect(selfTyping).toBe(0);

    const left = nextEvent(b, 'userLeft');
    expect(await a.emitWithAck('leaveRoom', { roomId, entityId: 'alice' })).toEqual({
      status: 'ok',
      roomId,
    });
    expect(await left).toEqual({ userId: 'alice', roomId });

    await joinRoom(a, roomId, 'alice');
    const gone = nextEvent(b, 'userLeft');
    a.disconnect();
    expect(await gone).toEqual({ userId: 'alice', roomId });
  });

  it('answers malformed payloads and unknown types with an error, and keeps the connection', async () => {
    const socket = await client();
    const bad = [
      { type: 2, payload: { message: 'no room' } },
      { type: 1, payload: { roomId: 'not-a-uuid', entityId: 'x' } },
      { type: 9, payload: {} },
      { type: 3, payload: {} },
      { nope: true },
      'a string',
    ];
    for (const envelope of bad) {
      const ack = await socket.emitWithAck('message', envelope as never);
      expect(ack).toMatchObject({ status: 'error', error: { code: 'BAD_REQUEST' } });
    }
    const error = nextEvent(socket, 'messageError');
    emitWithoutAck(socket, { type: 2, payload: {} });
    expect(await error).toMatchObject({ code: 'BAD_REQUEST' });
    expect(socket.connected).toBe(true);
    expect(await joinRoom(socket, randomUUID(), 'still-here')).toMatchObject({ status: 'ok' });
  });

  it('refuses payloads over the size limit with an error, not a disconnect', async () => {
    const socket = await client();
    const ack = await send(socket, randomUUID(), 'x'.repeat(5000));
    expect(ack).toMatchObject({ status: 'error', error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(socket.connected).toBe(true);
  });

  it('reports a model failure to the room as messageError, then messageComplete', async () => {
    const roomId = randomUUID();
    model.behaviour = { fail: new ParleyError('MODEL_ERROR', 'The model provider failed') };
    const socket = await client();
    await joinRoom(socket, roomId, 'user-1');
    const error = nextEvent(socket, 'messageError');
    const complete = nextEvent(socket, 'messageComplete');
    expect(await send(socket, roomId, 'hi')).toMatchObject({ status: 'ok' });
    expect(await error).toMatchObject({ code: 'MODEL_ERROR', roomId });
    await complete;
  });
});

/** Sends a `message` event with no acknowledgment callback, as some clients do. */
function emitWithoutAck(socket: { emit: (...args: never[]) => unknown }, envelope: unknown) {
  (socket.emit as (event: string, payload: unknown) => void)('message', envelope);
}

describe('event socket under abuse', () => {
  it('survives a flood of malformed payloads and still answers', async () => {
    const socket = await connectClient(test.url, 'websocket');
    open.push(socket);
    const errors: unknown[] = [];
    socket.on('messageError', (e) => errors.push(e));
    for (let i = 0; i < 150; i++) {
      emitWithoutAck(socket, i % 3 === 0 ? { type: i } : i % 3 === 1 ? null : [i, 'x']);
      socket.emit('typing', { garbage: i } as never);
    }
    expect(await joinRoom(socket, randomUUID(), 'survivor')).toMatchObject({ status: 'ok' });
    expect(errors.length).toBeGreaterThan(0);
    const health = await fetch(`${test.url}/api/server/health`);
    expect(health.status).toBe(200);
  });

  it('rate-limits a socket that sends too fast, with an error answer', async () => {
    await using limited = await startTestServer({
      model,
      socketRateLimit: { burst: 5, perSecond: 0.001 },
    });
    const socket = await connectClient(limited.url, 'websocket');
    open.push(socket);
    const acks = [];
    for (let i = 0; i < 8; i++) acks.push(await joinRoom(socket, randomUUID(), 'fast'));
    expect(acks.slice(0, 5).every((a) => a.status === 'ok')).toBe(true);
    expect(acks[7]).toMatchObject({ status: 'error', error: { code: 'RATE_LIMITED' } });
    expect(socket.connected).toBe(true);
  });

  it('requires the API key when a token is set, and says why it refuses', async () => {
    await using secured = await startTestServer({ model, authToken: 's3cret' });
    await expect(connectClient(secured.url, 'websocket')).rejects.toThrow(/Unauthorized/);
    await expect(
      connectClient(secured.url, 'polling', { auth: { apiKey: 'wrong' } }),
    ).rejects.toThrow(/Unauthorized/);
    const socket = await connectClient(secured.url, 'websocket', { auth: { apiKey: 's3cret' } });
    open.push(socket);
    expect(socket.connected).toBe(true);
  });
});

describe('control messages', () => {
  it('reach the room when server or plugin code asks through the agent runtime', async () => {
    const roomId = randomUUID();
    const member = await connectClient(test.url, 'websocket');
    const outsider = await connectClient(test.url, 'polling');
    open.push(member, outsider);
    await joinRoom(member, roomId, 'u');
    let outsiderGot = 0;
    outsider.on('controlMessage', () => (outsiderGot += 1));
    const received = nextEvent(member, 'controlMessage');
    test.server.agents.defaultAgent.sendControl({
      channelId: roomId,
      action: 'disable_input',
      target: 'u',
    });
    expect(await received).toEqual({
      action: 'disable_input',
      target: 'u',
      roomId,
      channelId: roomId,
    });
    await joinRoom(outsider, randomUUID(), 'o');
    expect(outsiderGot).toBe(0);
  });
});

describe('REST and socket share one conversation', () => {
  it('broadcasts REST messages and replies to socket members of the room', async () => {
    const roomId = randomUUID();
    model.behaviour = { reply: 'From the agent' };
    const socket = await connectClient(test.url, 'websocket');
    open.push(socket);
    await joinRoom(socket, roomId, 'watcher');
    const seen: string[] = [];
    socket.on('messageBroadcast', (m) => seen.push(m.text));
    const complete = nextEvent(socket, 'messageComplete');
    await fetch(`${test.url}/api/messaging/channels/${roomId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'From REST', entityId: 'rest-user' }),
    });
    await complete;
    const submitted = nextEvent(socket, 'messageBroadcast', (m) => m.text === 'Posted');
    await fetch(`${test.url}/api/messaging/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        channel_id: roomId,
        author_id: 'bot',
        content: 'Posted',
        metadata: { agentName: 'Bot' },
      }),
    });
    expect(await submitted).toMatchObject({ senderName: 'Bot', roomId, channelId: roomId });
    expect(seen).toEqual(['From REST', 'From the agent', 'Posted']);
  });
});

describe('reconnection', () => {
  it('reconnects after a server restart, re-joins, and receives broadcasts again', async () => {
    const database = await copyPGliteTemplate();
    const options = { model, logger: createLogger('silent'), env: {}, database: database.location };
    const first = createServer({ ...options, port: 0 });
    const { url, port } = await first.start();
    const socket: TestSocket = io(url, {
      transports: ['websocket'],
      reconnectionDelay: 50,
      forceNew: true,
    });
    open.push(socket);
    await nextEvent(socket, 'connection_established');
    const roomId = randomUUID();
    await joinRoom(socket, roomId, 'u');

    await first.stop();
    const second = createServer({ ...options, port });
    try {
      const reconnected = nextEvent(socket, 'connection_established');
      await second.start();
      await reconnected;
      await joinRoom(socket, roomId, 'u');
      const reply = nextEvent(socket, 'messageBroadcast', (m) => m.senderName === 'Eliza');
      await socket.emitWithAck('message', {
        type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
        payload: { senderId: 'u', senderName: 'U', message: 'back again', roomId },
      });
      expect(await reply).toMatchObject({ roomId });
    } finally {
      socket.disconnect();
      await second.stop();
      await database.dispose();
    }
  });
});
