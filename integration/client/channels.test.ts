import { randomUUID } from 'node:crypto';
import {
  ParleyClientError,
  type ParleySocket,
  connectSocket,
  createParleyClient,
} from '@parley/client';
import type { Channel } from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextEvent } from './events';
import { type TestServer, startServer } from '../support/start-server';

const AGENT = { name: 'Eliza', id: 'b850bc30-45f8-0041-a00a-83df46d8555d' };
let running: TestServer;
let client: ReturnType<typeof createParleyClient>;
let socket: ParleySocket;

beforeAll(async () => {
  running = await startServer({ characters: [AGENT] });
  client = createParleyClient({ baseUrl: running.url });
  socket = connectSocket({ baseUrl: running.url });
  await nextEvent(socket.onConnectionChange, (state) => state.status === 'connected');
});
afterAll(async () => {
  socket?.disconnect();
  await running?.server.stop();
});

describe('the channels API through @parley/client', () => {
  it('creates, lists, renames and deletes a channel, each change heard on the socket', async () => {
    const created = nextEvent<Channel>((listener) => socket.on('channelCreated', listener));
    const channel = await client.createChannel({ name: 'Roadmap', participants: ['ada'] });
    expect(await created).toEqual(channel);

    const page = await client.listChannels({ limit: 100 });
    expect(page.channels.map((listed) => listed.id)).toContain(channel.id);
    await expect(client.getChannel(channel.id)).resolves.toEqual(channel);

    const updated = nextEvent<Channel>((listener) => socket.on('channelUpdated', listener));
    const renamed = await client.updateChannel(channel.id, { name: 'Roadmap 2027' });
    expect(renamed.name).toBe('Roadmap 2027');
    expect(await updated).toEqual(renamed);

    const deleted = nextEvent<{ channelId: string }>((listener) =>
      socket.on('channelDeleted', listener),
    );
    await expect(client.deleteChannel(channel.id)).resolves.toEqual({ deleted: true, messages: 0 });
    expect(await deleted).toEqual({ channelId: channel.id });
    const missing = await client.getChannel(channel.id).catch((error: unknown) => error);
    expect(ParleyClientError.isInstance(missing) && missing.code).toBe('NOT_FOUND');
  });

  it('manages participants and agents', async () => {
    const channel = await client.createChannel({ name: 'People' });
    await expect(client.addParticipant(channel.id, 'ben')).resolves.toMatchObject({
      changed: true,
    });
    await expect(client.addAgentToChannel(channel.id, AGENT.id)).resolves.toMatchObject({
      changed: true,
    });
    const participants = await client.listParticipants(channel.id);
    expect(participants.map(({ userId, role }) => ({ userId, role }))).toEqual([
      { userId: 'ben', role: 'member' },
      { userId: AGENT.id, role: 'agent' },
    ]);
    expect((await client.getChannel(channel.id)).agentId).toBe(AGENT.id);
    await client.removeAgentFromChannel(channel.id, AGENT.id);
    await client.removeParticipant(channel.id, 'ben');
    await expect(client.listParticipants(channel.id)).resolves.toEqual([]);
  });

  it('deletes a message and clears the history; the history method still answers a list', async () => {
    const channelId = randomUUID();
    const first = await client.submit({ channel_id: channelId, author_id: 'ada', content: 'one' });
    await client.submit({ channel_id: channelId, author_id: 'ada', content: 'two' });
    await expect(client.deleteMessage(channelId, first.id)).resolves.toEqual({ deleted: true });
    const history = await client.channelMessages(channelId);
    expect(history.map((message) => message.content)).toEqual(['two']);
    await expect(client.clearChannel(channelId)).resolves.toEqual({ deleted: 1 });
    await expect(client.channelMessages(channelId)).resolves.toEqual([]);
  });
});
