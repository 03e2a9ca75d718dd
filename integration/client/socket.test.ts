import { randomUUID } from 'node:crypto';
import {
  type ParleySocket,
  ParleyClientError,
  connectSocket,
  createParleyClient,
} from '@parley/client';
import type { MessageBroadcast } from '@parley/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collect, nextEvent } from './events';
import { slowModel } from './slow-eliza';
import { type TestServer, startServer } from '../support/start-server';

let running: TestServer;
const sockets: ParleySocket[] = [];

beforeAll(async () => {
  running = await startServer();
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.disconnect();
});
afterAll(() => running?.server.stop());

/** A connected socket client, disconnected after the test. */
async function connected(options: { pollingOnly?: boolean } = {}): Promise<ParleySocket> {
  const socket = connectSocket({ baseUrl: running.url, ...options });
  sockets.push(socket);
  await nextEvent(socket.onConnectionChange, (state) => state.status === 'connected');
  return socket;
}

const broadcastIn = (socket: ParleySocket, roomId: string) =>
  nextEvent<MessageBroadcast>(
    (listener) => socket.on('messageBroadcast', listener),
    (message) => message.roomId === roomId,
  );

describe('the event socket client', () => {
  it('joins a room, sends, and receives its message, the streamed reply and messageComplete', async () => {
    const socket = await connected();
    const roomId = randomUUID();
    await expect(socket.joinRoom(roomId, 'user-1')).resolves.toEqual({ roomId });

    const broadcasts = collect<MessageBroadcast>((listener) =>
      socket.on('messageBroadcast', listener),
    );
    const chunks = collect<{ chunk: string }>((listener) =>
      socket.on('messageStreamChunk', listener),
    );
    const complete = nextEvent((listener) => socket.on('messageComplete', listener));
    const messageId = randomUUID();
    const ack = await socket.sendMessage(roomId, {
      text: 'I am sad about my job',
      senderId: 'user-1',
      senderName: 'Ada',
      messageId,
    });
    expect(ack).toEqual({ messageId, roomId });

    await expect(complete).resolves.toMatchObject({ messageId, roomId, channelId: roomId });
    broadcasts.stop();
    chunks.stop();
    expect(broadcasts.values.map((message) => message.senderName)).toEqual(['Ada', 'Eliza']);
    expect(broadcasts.values[0]).toMatchObject({ id: messageId, text: 'I am sad about my job' });
    expect(chunks.values.map((chunk) => chunk.chunk).join('')).toBe(broadcasts.values[1]!.text);
  });

  it('works over long-polling only', async () => {
    const socket = await connected({ pollingOnly: true });
    const roomId = randomUUID();
    await socket.joinRoom(roomId, 'user-1');
    const reply = broadcastIn(socket, roomId);
    await createParleyClient({ baseUrl: running.url }).sendMessage(roomId, {
      text: 'hello',
      entityId: 'user-2',
    });
    await expect(reply).resolves.toMatchObject({ roomId, channelId: roomId, text: 'hello' });
  });

  it('delivers only the broadcasts of the rooms this client joined', async () => {
    const [inBoth, inFirst] = [await connected(), await connected()];
    const [first, second] = [randomUUID(), randomUUID()];
    await inBoth.joinRoom(first, 'a');
    await inBoth.joinRoom(second, 'a');
    await inFirst.joinRoom(first, 'b');
    const seenByFirstOnly = collect<MessageBroadcast>((listener) =>
      inFirst.on('messageBroadcast', listener),
    );
    const rest = createParleyClient({ baseUrl: running.url });
    const agentId = (await rest.listAgents())[0]!.id;
    const post = (roomId: string, content: string) =>
      rest.submit({ channel_id: roomId, author_id: agentId, content });

    const inSecond = broadcastIn(inBoth, second);
    await post(second, 'only for the second room');
    await expect(inSecond).resolves.toMatchObject({ text: 'only for the second room' });
    const inFirstRoom = broadcastIn(inFirst, first);
    await post(first, 'for the first room');
    await inFirstRoom;
    seenByFirstOnly.stop();
    // Sent in order on one connection: had the second room's broadcast reached it, it would come first.
    expect(seenByFirstOnly.values.map((message) => message.text)).toEqual(['for the first room']);

    await inBoth.leaveRoom(second);
    expect(inBoth.rooms).toEqual([first]);
  });

  it('drops events of rooms it did not join, and malformed ones, even when the server sends them', async () => {
    const invalid: string[] = [];
    const socket = connectSocket({
      baseUrl: running.url,
      onInvalidEvent: (error) => invalid.push(error.code),
    });
    sockets.push(socket);
    await nextEvent(socket.onConnectionChange, (state) => state.status === 'connected');
    const [joined, other] = [randomUUID(), randomUUID()];
    await socket.joinRoom(joined, 'user-1');
    const seen = collect<{ roomId: string }>((listener) => socket.on('userTyping', listener));
    const last = nextEvent((listener) => socket.on('userTyping', listener));
    // io.emit reaches every connection whatever its rooms: only the client's own filter stands in the way.
    running.server.io.emit('userTyping', { roomId: other, userId: 'x', isTyping: true });
    running.server.io.emit('userTyping', { roomId: joined } as never);
    running.server.io.emit('userTyping', { roomId: joined, userId: 'y', isTyping: false });
    await last;
    seen.stop();
    expect(seen.values).toEqual([{ roomId: joined, userId: 'y', isTyping: false }]);
    expect(invalid).toEqual(['INVALID_RESPONSE']);
  });

  it('relays presence and typing between two clients', async () => {
    const [alice, bob] = [await connected(), await connected()];
    const roomId = randomUUID();
    await alice.joinRoom(roomId, 'alice');
    const joined = nextEvent((listener) => alice.on('userJoined', listener));
    await bob.joinRoom(roomId, 'bob');
    await expect(joined).resolves.toEqual({ userId: 'bob', roomId });

    const typing = nextEvent((listener) => alice.on('userTyping', listener));
    bob.setTyping(roomId, 'bob', true);
    await expect(typing).resolves.toEqual({ roomId, userId: 'bob', isTyping: true });

    const left = nextEvent((listener) => alice.on('userLeft', listener));
    await bob.leaveRoom(roomId);
    await expect(left).resolves.toEqual({ userId: 'bob', roomId });
  });

  it('delivers controlMessage sent by server code to the room', async () => {
    const socket = await connected();
    const roomId = randomUUID();
    await socket.joinRoom(roomId, 'user-1');
    const control = nextEvent((listener) => socket.on('controlMessage', listener));
    running.server.agents.list()[0]!.sendControl({ channelId: roomId, action: 'disable_input' });
    await expect(control).resolves.toEqual({
      action: 'disable_input',
      roomId,
      channelId: roomId,
    });
  });

  it('stops delivering after the listener unsubscribes', async () => {
    const socket = await connected();
    const roomId = randomUUID();
    await socket.joinRoom(roomId, 'user-1');
    const early = collect<MessageBroadcast>((listener) => socket.on('messageBroadcast', listener));
    early.stop();
    const later = broadcastIn(socket, roomId);
    await socket.sendMessage(roomId, { text: 'hi', senderId: 'user-1', senderName: 'Ada' });
    await later;
    expect(early.values).toEqual([]);
  });

  it('rejects with the error acknowledgment as ParleyClientError', async () => {
    const socket = await connected();
    const join = await socket.joinRoom('not-a-uuid', 'user-1').catch((error: unknown) => error);
    expect(ParleyClientError.isInstance(join)).toBe(true);
    expect(join).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(socket.rooms).toEqual([]);
    const send = await socket
      .sendMessage(randomUUID(), { text: '', senderId: 'u', senderName: 'Ada' })
      .catch((error: unknown) => error);
    expect(send).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });

  it('rejects with TIMEOUT when no acknowledgment comes', async () => {
    const socket = connectSocket({ baseUrl: running.url, ackTimeout: 50, reconnection: false });
    sockets.push(socket);
    await nextEvent(socket.onConnectionChange, (state) => state.status === 'connected');
    socket.disconnect();
    // Emits are buffered until a connection that never comes: the ack timer is what ends the wait.
    const error = await socket.joinRoom(randomUUID(), 'u').catch((reason: unknown) => reason);
    expect(error).toMatchObject({ status: 0, code: 'TIMEOUT' });
  });
});

describe('stopping a reply from the socket client', () => {
  it('cancelReply ends the running reply as CANCELLED for the room and aborts the model', async () => {
    const model = slowModel();
    await using slow = await startServer({ model });
    const socket = connectSocket({ baseUrl: slow.url });
    sockets.push(socket);
    await nextEvent(socket.onConnectionChange, (state) => state.status === 'connected');
    const roomId = randomUUID();
    await socket.joinRoom(roomId, 'user-1');
    const firstChunk = nextEvent<{ messageId: string }>((listener) =>
      socket.on('messageStreamChunk', listener),
    );
    const failed = nextEvent<{ code: string }>((listener) => socket.on('messageError', listener));
    await socket.sendMessage(roomId, {
      text: 'Tell me everything',
      senderId: 'user-1',
      senderName: 'Ada',
    });
    const { messageId: replyId } = await firstChunk;

    await expect(socket.cancelReply(roomId, replyId)).resolves.toBeUndefined();
    await expect(failed).resolves.toMatchObject({ code: 'CANCELLED' });
    await expect.poll(() => model.aborted.length).toBe(1);
    // Ended: a second cancel is refused, as the interface documents.
    await expect(socket.cancelReply(roomId, replyId)).rejects.toBeInstanceOf(ParleyClientError);
  });
});
