import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConnectionState, connectSocket, createParleyClient } from '@parley/client';
import type { MessageBroadcast } from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextEvent } from './events';
import { type TestServer, startServer } from '../support/start-server';

let dataDir: string;
const servers: TestServer[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'parley-client-restart-'));
});
afterAll(async () => {
  for (const running of servers) await running.server.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function start(port = 0) {
  const running = await startServer({ port, database: { kind: 'pglite', dataDir } });
  servers.push(running);
  return running;
}

describe('a server restart during a socket session', () => {
  it('reconnects, re-joins every room and receives broadcasts again', async () => {
    const first = await start();
    const socket = connectSocket({
      baseUrl: first.url,
      // The new server needs a few seconds to open its database: keep trying long enough.
      reconnectionDelay: 100,
      reconnectionAttempts: 100,
    });
    try {
      await nextEvent(socket.onConnectionChange, (state) => state.status === 'connected');
      const [roomA, roomB] = [randomUUID(), randomUUID()];
      await socket.joinRoom(roomA, 'user-1');
      await socket.joinRoom(roomB, 'user-1');

      const dropped = nextEvent<ConnectionState>(socket.onConnectionChange);
      await first.server.stop();
      await expect(dropped).resolves.toMatchObject({ status: 'disconnected', willReconnect: true });

      const back = nextEvent<ConnectionState>(
        socket.onConnectionChange,
        (state) => state.status === 'connected',
      );
      const second = await start(first.port);
      expect(second.url).toBe(first.url);
      const state = await back;
      expect(state.status === 'connected' && [...state.rejoined].sort()).toEqual(
        [roomA, roomB].sort(),
      );

      const received = nextEvent<MessageBroadcast>(
        (listener) => socket.on('messageBroadcast', listener),
        (message) => message.roomId === roomB,
      );
      await createParleyClient({ baseUrl: second.url }).sendMessage(roomB, {
        text: 'are you back?',
        entityId: 'user-2',
      });
      await expect(received).resolves.toMatchObject({ text: 'are you back?', roomId: roomB });
    } finally {
      socket.disconnect();
    }
  });
});
