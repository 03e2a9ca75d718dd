import { SOCKET_MESSAGE_TYPE } from '@parley/core';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/test-server';
import type { ParleyServer } from '../../create-server';
import { createAsyncApiDocument } from './create-asyncapi-document';
import { documentedEvents } from './documented-events';

const document = createAsyncApiDocument();

describe('the AsyncAPI document against a real server', () => {
  let test: TestServer;
  let server: ParleyServer;
  let url: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    test = await startTestServer();
    ({ server, url } = test);
  });

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await test?.[Symbol.asyncDispose]();
  });

  it('receives every event the server listens for', async () => {
    const socket = connect(url, { transports: ['websocket'] });
    sockets.push(socket);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const serverSocket = server.io.sockets.sockets.get(socket.id!);
    const reserved = new Set(['disconnect', 'disconnecting', 'error']);
    const listened = serverSocket!
      .eventNames()
      .map(String)
      .filter((name) => !reserved.has(name));
    expect(listened.length).toBeGreaterThan(0);
    const received = documentedEvents(document, 'receive');
    expect(listened.filter((name) => !received.has(name))).toEqual([]);
  });

  it('sends every event a conversation delivers', async () => {
    const roomId = crypto.randomUUID();
    const seen = new Set<string>();
    const [alice, bob] = [connect(url), connect(url)];
    sockets.push(alice, bob);
    for (const socket of [alice, bob]) socket.onAny((event: string) => seen.add(event));
    const join = (socket: Socket, entityId: string) =>
      socket.emitWithAck('message', {
        type: SOCKET_MESSAGE_TYPE.ROOM_JOINING,
        payload: { roomId, entityId },
      });
    await join(alice, 'alice');
    await join(bob, 'bob');
    const complete = new Promise<void>((resolve) => alice.once('messageComplete', () => resolve()));
    bob.emit('typing', { roomId, userId: 'bob', isTyping: true });
    await alice.emitWithAck('message', {
      type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
      payload: { senderId: 'alice', senderName: 'Alice', message: 'I feel happy', roomId },
    });
    await complete;
    const left = new Promise<void>((resolve) => alice.once('userLeft', () => resolve()));
    bob.close();
    await left;
    for (const event of [
      'connection_established',
      'userJoined',
      'userTyping',
      'messageStreamChunk',
      'messageBroadcast',
      'messageComplete',
      'userLeft',
    ]) {
      expect(seen).toContain(event);
    }
    const sent = documentedEvents(document, 'send');
    expect([...seen].filter((event) => !sent.has(event))).toEqual([]);
  });
});
