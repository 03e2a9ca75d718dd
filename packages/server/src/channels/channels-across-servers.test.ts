import { randomUUID } from 'node:crypto';
import { type Channel, channelSchema } from '@parley/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresDatabase,
  postgresUnavailableReason,
  type TestDatabase,
} from '../../test/databases';
import { ScriptedModel, deferred } from '../../test/scripted-model';
import { connectClient, joinRoom, nextEvent, type TestSocket } from '../../test/socket-client';
import { createServer, type ParleyServer } from '../create-server';
import { createLogger } from '../logger';
import { createDatabase } from '../storage/create-database';
import { ChannelStore, DELETE_BATCH_ROWS } from './channel-store';

const skip = await postgresUnavailableReason();
// eslint-disable-next-line no-console
if (skip) console.warn(`skipping channels across servers: ${skip}`);

/*
 * Two processes on one PostgreSQL database, as a cluster runs: a change made through one is heard on a socket
 * connected to the other, and deletes hold no long transaction.
 */
describe.skipIf(skip)('channels across two servers on one PostgreSQL database', () => {
  let database: TestDatabase;
  const model = new ScriptedModel();
  const servers: { server: ParleyServer; url: string }[] = [];
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase();
    for (let index = 0; index < 2; index++) {
      const server = createServer({
        port: 0,
        logger: createLogger('silent'),
        env: {},
        model,
        database: database.location,
      });
      const { url } = await server.start();
      servers.push({ server, url });
    }
  });
  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    for (const { server } of servers) await server.stop();
    await database?.dispose();
  });

  const call = async (index: number, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${servers[index]!.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { data: unknown };
    return { status: response.status, data: json.data };
  };
  const socketOn = async (index: number) => {
    const socket = await connectClient(servers[index]!.url, 'websocket');
    sockets.push(socket);
    return socket;
  };

  it('a channel made on server 1 is created, renamed and deleted on a socket of server 2', async () => {
    const socket = await socketOn(1);
    const created = nextEvent(socket, 'channelCreated', (channel) => channel.name === 'Launch');
    const { data } = await call(0, 'POST', '/api/messaging/channels', { name: 'Launch' });
    const channel = channelSchema.parse(data);
    expect(await created).toEqual(channel);

    const updated = nextEvent(socket, 'channelUpdated', (event) => event.id === channel.id);
    const renamed = await call(0, 'PATCH', `/api/messaging/channels/${channel.id}`, {
      name: 'Launch day',
    });
    expect(await updated).toEqual(renamed.data);
    expect((await updated).name).toBe('Launch day');

    const deleted = nextEvent(socket, 'channelDeleted', (event) => event.channelId === channel.id);
    expect((await call(0, 'DELETE', `/api/messaging/channels/${channel.id}`)).status).toBe(200);
    expect(await deleted).toEqual({ channelId: channel.id });
    expect((await call(1, 'GET', `/api/messaging/channels/${channel.id}`)).status).toBe(404);
  });

  it('a message deleted through server 1 is heard by a room member on server 2', async () => {
    const channelId = randomUUID();
    const posted = await call(1, 'POST', '/api/messaging/submit', {
      channel_id: channelId,
      author_id: 'user-1',
      content: 'to be deleted',
    });
    const messageId = (posted.data as { id: string }).id;
    const socket = await socketOn(1);
    await joinRoom(socket, channelId, 'watcher');
    const heard = nextEvent(socket, 'messageDeleted');
    const deleted = await call(
      0,
      'DELETE',
      `/api/messaging/channels/${channelId}/messages/${messageId}`,
    );
    expect(deleted.status).toBe(200);
    expect(await heard).toEqual({ channelId, messageId });
  });

  it('deletes a channel of 5,000 messages in batches, and a message posted after recreates it', async () => {
    const channelId = randomUUID();
    await call(0, 'POST', '/api/messaging/submit', {
      channel_id: channelId,
      author_id: 'user-1',
      content: 'first',
    });
    // 4,999 more, written straight into the table as a busy channel's history would be.
    const direct = createDatabase(database.location);
    try {
      await sql`insert into messages (id, channel_id, server_id, author_id, author_name, content,
                  source_type, metadata, created_at)
                select gen_random_uuid(), ${channelId}::uuid, '00000000-0000-0000-0000-000000000000',
                  'user-1', 'user-1', 'message ' || n, 'api', '{}'::jsonb, now() - n * interval '1 ms'
                from generate_series(1, 4999) as n`.execute(direct.db);
      // One round is one statement of at most DELETE_BATCH_ROWS rows.
      const store = new ChannelStore(direct.db, () => Promise.resolve());
      expect(await store.deleteMessages(channelId, 1)).toBe(DELETE_BATCH_ROWS);
      const deleted = await call(1, 'DELETE', `/api/messaging/channels/${channelId}`);
      expect(deleted).toMatchObject({
        status: 200,
        data: { deleted: true, messages: 5000 - DELETE_BATCH_ROWS },
      });
      const left = await sql<{ count: string }>`select count(*) from messages
                    where channel_id = ${channelId}::uuid`.execute(direct.db);
      expect(Number(left.rows[0]!.count)).toBe(0);
    } finally {
      await direct.close();
    }
    // Server 0 knew the channel: it forgot it, so its next message creates the channel again.
    await call(0, 'POST', '/api/messaging/submit', {
      channel_id: channelId,
      author_id: 'user-1',
      content: 'again',
    });
    const again = await call(1, 'GET', `/api/messaging/channels/${channelId}`);
    expect(again.status).toBe(200);
  });

  it('deleting a channel cancels its running reply on the other server', async () => {
    const gate = deferred();
    model.behaviour = { gate: gate.promise };
    try {
      const channelId = randomUUID();
      const socket = await socketOn(1);
      await joinRoom(socket, channelId, 'watcher');
      const cancelled = nextEvent(socket, 'messageError', (error) => error.code === 'CANCELLED');
      const posted = await call(1, 'POST', `/api/messaging/channels/${channelId}/messages`, {
        text: 'a long question',
        entityId: 'user-1',
      });
      expect(posted.status).toBe(202);
      expect((await call(0, 'DELETE', `/api/messaging/channels/${channelId}`)).status).toBe(200);
      expect((await cancelled).code).toBe('CANCELLED');
    } finally {
      gate.resolve();
      model.behaviour = {};
    }
  });

  it('renames released together on both servers end in one state, the one the events name last', async () => {
    const { data } = await call(0, 'POST', '/api/messaging/channels', { name: 'race' });
    const channel = channelSchema.parse(data);
    const socket = await socketOn(1);
    const events: Channel[] = [];
    socket.on('channelUpdated', (event) => {
      if (event.id === channel.id) events.push(event);
    });
    const names = Array.from({ length: 12 }, (_, index) => `name ${index}`);
    const answers = await Promise.all(
      names.map((name, index) =>
        call(index % 2, 'PATCH', `/api/messaging/channels/${channel.id}`, { name }),
      ),
    );
    const states = answers.map((answer) => channelSchema.parse(answer.data));
    // Every answer is a distinct state, strictly ordered by updatedAt.
    expect(new Set(states.map((state) => state.updatedAt)).size).toBe(names.length);
    const newest = states.reduce((a, b) => (a.updatedAt > b.updatedAt ? a : b));
    const stored = channelSchema.parse(
      (await call(1, 'GET', `/api/messaging/channels/${channel.id}`)).data,
    );
    expect(stored).toEqual(newest);
    await expect.poll(() => events.length).toBe(names.length);
    const heard = events.reduce((a, b) => (a.updatedAt > b.updatedAt ? a : b));
    expect(heard).toEqual(stored);
  });
});
