import { randomUUID } from 'node:crypto';
import type { MessageBroadcast } from '@parley/core';
import { connectSocket, createParleyClient } from '@parley/client';
import { type ParleyServer } from '@parley/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer } from '../support/start-server';

/** The root README's integrator example, run as written against a live server. */
let server: ParleyServer;
let baseUrl: string;

beforeAll(async () => {
  ({ server, url: baseUrl } = await startServer());
});
afterAll(async () => {
  await server.stop();
});

it('works as the README shows', async () => {
  const parley = createParleyClient({ baseUrl });
  const channelId = randomUUID();

  const { agentResponse } = await parley.sendMessage(channelId, {
    text: 'Hello!',
    entityId: 'user-1',
    mode: 'sync',
  });
  expect(agentResponse.text).not.toBe('');

  let streamed = '';
  for await (const event of parley.sendMessage(channelId, {
    text: 'More?',
    entityId: 'user-1',
    mode: 'stream',
  })) {
    if (event.event === 'chunk') streamed += event.data.chunk;
  }
  expect(streamed).not.toBe('');

  const socket = connectSocket({ baseUrl });
  try {
    await socket.joinRoom(channelId, 'user-1');
    const seen: MessageBroadcast[] = [];
    const reply = new Promise<void>((resolve) =>
      socket.on('messageBroadcast', (message) => {
        seen.push(message);
        if (message.senderName === 'Eliza') resolve();
      }),
    );
    await socket.sendMessage(channelId, {
      text: 'Hi there',
      senderId: 'user-1',
      senderName: 'Ada',
    });
    await reply;
    expect(seen[0]).toMatchObject({ senderName: 'Ada', text: 'Hi there' });
  } finally {
    socket.disconnect();
  }
});
