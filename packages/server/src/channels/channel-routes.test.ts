import { randomUUID } from 'node:crypto';
import {
  channelListSchema,
  channelParticipantsSchema,
  channelSchema,
  DEFAULT_SERVER_ID,
  type Channel,
} from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { connectClient, joinRoom, nextEvent } from '../../test/socket-client';
import { startTestServer, type TestServer } from '../../test/test-server';

const kinds = await databaseKinds();
const AGENT_B = { name: 'Bea', id: '7d1a9c1e-0b7e-4b8a-9a55-3f1f0e2d4c6b' };

describe.each(kinds)('channels API on $name', ({ create, skip }) => {
  let test: TestServer;
  beforeAll(async () => {
    if (skip) return;
    test = await startTestServer({ characters: [{ name: 'Eliza' }, AGENT_B] }, await create());
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${test.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = (await response.json()) as {
      success: boolean;
      data: never;
      error?: { code: string; message: string };
    };
    return { status: response.status, ...json };
  };
  const createChannel = async (body: Record<string, unknown>): Promise<Channel> => {
    const { status, data } = await call('POST', '/api/messaging/channels', body);
    expect(status).toBe(201);
    return channelSchema.parse(data);
  };
  const say = (channelId: string, text: string) =>
    call('POST', `/api/messaging/submit`, {
      channel_id: channelId,
      author_id: 'u1',
      content: text,
    });

  it.skipIf(skip)('creates, reads, renames and deletes a channel', async () => {
    const channel = await createChannel({
      name: 'Design',
      participants: ['alice', 'bob'],
      metadata: { color: 'blue' },
      topic: 'the new page',
    });
    expect(channel).toMatchObject({
      name: 'Design',
      type: 'GROUP',
      messageServerId: DEFAULT_SERVER_ID,
      agentId: null,
      topic: 'the new page',
      metadata: { color: 'blue' },
      lastMessageAt: null,
    });
    const read = await call('GET', `/api/messaging/channels/${channel.id}`);
    expect(read.data).toEqual(channel);
    expect((await call('GET', `/api/messaging/channels/${channel.id}/details`)).data).toEqual(
      channel,
    );

    const renamed = await call('PATCH', `/api/messaging/channels/${channel.id}`, {
      name: 'Design 2',
    });
    expect(renamed.status).toBe(200);
    const after = channelSchema.parse(renamed.data);
    expect(after.name).toBe('Design 2');
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(channel.updatedAt));

    await say(channel.id, 'one');
    const deleted = await call('DELETE', `/api/messaging/channels/${channel.id}`);
    expect(deleted).toMatchObject({ status: 200, data: { deleted: true, messages: 1 } });
    expect((await call('GET', `/api/messaging/channels/${channel.id}`)).status).toBe(404);
    expect((await call('DELETE', `/api/messaging/channels/${channel.id}`)).status).toBe(404);
    const history = await call('GET', `/api/messaging/channels/${channel.id}/messages`);
    expect(history.data).toEqual({ messages: [], hasMore: false });
  });

  it.skipIf(skip)('lists a channel created on first use, named from its id', async () => {
    const channelId = randomUUID();
    expect((await say(channelId, 'hello')).status).toBe(201);
    const { data } = await call('GET', `/api/messaging/channels/${channelId}`);
    const channel = channelSchema.parse(data);
    expect(channel.name).toBe(`Chat ${channelId.slice(0, 8)}`);
    expect(channel.lastMessageAt).not.toBeNull();
    const list = channelListSchema.parse(
      (await call('GET', '/api/messaging/channels?limit=100')).data,
    );
    expect(list.channels.map((listed) => listed.id)).toContain(channelId);
  });

  it.skipIf(skip)(
    'pages channels newest activity first, without skipping or repeating',
    async () => {
      const participant = `pager-${randomUUID()}`;
      const ids: string[] = [];
      for (let index = 0; index < 7; index++) {
        ids.push((await createChannel({ name: `c${index}`, participants: [participant] })).id);
      }
      // A message makes the oldest channel the most recently active.
      await say(ids[0]!, 'bump');
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `participantId=${participant}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
        const page = channelListSchema.parse(
          (await call('GET', `/api/messaging/channels?${query}`)).data,
        );
        expect(page.channels.length).toBeLessThanOrEqual(3);
        seen.push(...page.channels.map((channel) => channel.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual([ids[0], ...ids.slice(1).reverse()]);
    },
  );

  it.skipIf(skip)('filters by agent, and an agent joins and leaves', async () => {
    const channel = await createChannel({ name: 'with Bea' });
    const joined = await call('POST', `/api/messaging/channels/${channel.id}/agents`, {
      agentId: AGENT_B.id,
    });
    expect(joined).toMatchObject({ status: 201, data: { success: true, changed: true } });
    const read = channelSchema.parse(
      (await call('GET', `/api/messaging/channels/${channel.id}`)).data,
    );
    expect(read.agentId).toBe(AGENT_B.id);
    const listed = channelListSchema.parse(
      (await call('GET', `/api/messaging/channels?agentId=${AGENT_B.id}&limit=100`)).data,
    );
    expect(listed.channels.map((listedChannel) => listedChannel.id)).toContain(channel.id);
    const participants = channelParticipantsSchema.parse(
      (await call('GET', `/api/messaging/channels/${channel.id}/participants`)).data,
    );
    expect(participants.participants).toMatchObject([{ userId: AGENT_B.id, role: 'agent' }]);

    const left = await call('DELETE', `/api/messaging/channels/${channel.id}/agents/${AGENT_B.id}`);
    expect(left.status).toBe(200);
    const after = channelSchema.parse(
      (await call('GET', `/api/messaging/channels/${channel.id}`)).data,
    );
    expect(after.agentId).toBeNull();
    expect(
      (await call('DELETE', `/api/messaging/channels/${channel.id}/agents/${AGENT_B.id}`)).status,
    ).toBe(404);
  });

  it.skipIf(skip)('adds, lists and removes people', async () => {
    const channel = await createChannel({ name: 'people', participants: ['ann'] });
    const path = `/api/messaging/channels/${channel.id}/participants`;
    expect((await call('POST', path, { participantId: 'ben' })).data).toMatchObject({
      changed: true,
    });
    expect((await call('POST', path, { participantId: 'ben' })).data).toMatchObject({
      changed: false,
    });
    const list = channelParticipantsSchema.parse((await call('GET', path)).data);
    expect(list.participants.map((participant) => participant.userId).sort()).toEqual([
      'ann',
      'ben',
    ]);
    expect((await call('DELETE', `${path}/ann`)).status).toBe(200);
    expect((await call('DELETE', `${path}/ann`)).status).toBe(404);
    const missing = `/api/messaging/channels/${randomUUID()}/participants`;
    expect((await call('POST', missing, { participantId: 'ben' })).status).toBe(404);
    expect((await call('GET', missing)).status).toBe(404);
  });

  it.skipIf(skip)('clears history and deletes one message; the room hears both', async () => {
    const channel = await createChannel({ name: 'history' });
    const first = (await say(channel.id, 'first')).data as { id: string };
    await say(channel.id, 'second');
    const socket = await connectClient(test.url, 'websocket');
    try {
      await joinRoom(socket, channel.id, 'watcher');
      const deletedEvent = nextEvent(socket, 'messageDeleted');
      const path = `/api/messaging/channels/${channel.id}/messages`;
      expect((await call('DELETE', `${path}/${first.id}`)).data).toEqual({
        success: true,
        deleted: true,
      });
      expect(await deletedEvent).toEqual({ channelId: channel.id, messageId: first.id });
      expect((await call('DELETE', `${path}/${first.id}`)).status).toBe(404);
      const page = (await call('GET', path)).data as { messages: { content: string }[] };
      expect(page.messages.map((message) => message.content)).toEqual(['second']);

      const cleared = nextEvent(socket, 'channelCleared');
      expect((await call('DELETE', path)).data).toEqual({ success: true, deleted: 1 });
      expect(await cleared).toEqual({ channelId: channel.id });
      expect((await call('GET', path)).data).toEqual({ messages: [], hasMore: false });
      const read = channelSchema.parse(
        (await call('GET', `/api/messaging/channels/${channel.id}`)).data,
      );
      expect(read.lastMessageAt).toBeNull();
    } finally {
      socket.disconnect();
    }
  });

  it.skipIf(skip)(
    'pages history with before as a message id, epoch ms or ISO, and after',
    async () => {
      const channelId = randomUUID();
      for (const text of ['a', 'b', 'c', 'd']) await say(channelId, text);
      const path = `/api/messaging/channels/${channelId}/messages`;
      type Page = {
        messages: { id: string; content: string; created_at: string }[];
        hasMore: boolean;
      };
      const first = (await call('GET', `${path}?limit=2`)).data as Page;
      expect(first.messages.map((message) => message.content)).toEqual(['d', 'c']);
      expect(first.hasMore).toBe(true);
      const second = (await call('GET', `${path}?limit=2&before=${first.messages[1]!.id}`))
        .data as Page;
      expect(second.messages.map((message) => message.content)).toEqual(['b', 'a']);
      expect(second.hasMore).toBe(false);
      const future = Date.now() + 60_000;
      const byEpoch = (await call('GET', `${path}?before=${future}`)).data as Page;
      expect(byEpoch.messages).toHaveLength(4);
      const byIso = (await call('GET', `${path}?before=${new Date(future).toISOString()}`))
        .data as Page;
      expect(byIso.messages).toHaveLength(4);
      const oldest = Date.parse(second.messages[1]!.created_at);
      const after = (await call('GET', `${path}?after=${oldest - 1}`)).data as Page;
      expect(after.messages.map((message) => message.content)).toEqual(['d', 'c', 'b', 'a']);
      expect(after.messages[0]).toMatchObject({ channelId, authorId: 'u1', content: 'd' });
    },
  );

  it.skipIf(skip)('answers the same DM channel to both participants', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const one = await call('GET', `/api/messaging/dm-channel?currentUserId=${a}&targetUserId=${b}`);
    const two = await call('GET', `/api/messaging/dm-channel?currentUserId=${b}&targetUserId=${a}`);
    expect(one.status).toBe(200);
    expect(channelSchema.parse(one.data).type).toBe('DM');
    expect(two.data).toEqual(one.data);
    expect(
      (await call('GET', `/api/messaging/dm-channel?currentUserId=${a}&targetUserId=${a}`)).status,
    ).toBe(400);
  });

  it.skipIf(skip)('refuses bad input with 400 and unknown channels with 404', async () => {
    const bad: [string, string, unknown?][] = [
      ['POST', '/api/messaging/channels', {}],
      ['POST', '/api/messaging/channels', { name: '' }],
      ['POST', '/api/messaging/channels', { name: 'x', type: 'VOICE' }],
      ['POST', '/api/messaging/channels', { name: 'x', participants: 'alice' }],
      ['POST', '/api/messaging/channels', { name: 'x', metadata: { bad: 'a\u0000b' } }],
      ['POST', '/api/messaging/channels', '{not json'],
      ['GET', '/api/messaging/channels?limit=101'],
      ['GET', '/api/messaging/channels?limit=0'],
      ['GET', '/api/messaging/channels?cursor=bm9wZQ'],
      ['GET', '/api/messaging/channels/not-a-uuid'],
      ['PATCH', `/api/messaging/channels/${randomUUID()}`, {}],
      ['PATCH', `/api/messaging/channels/${randomUUID()}`, { name: 42 }],
      ['GET', `/api/messaging/channels/${randomUUID()}/messages?before=yesterday`],
      ['GET', `/api/messaging/channels/${randomUUID()}/messages?after=${'9'.repeat(16)}`],
      ['DELETE', `/api/messaging/channels/${randomUUID()}/messages/nope`],
      ['POST', `/api/messaging/channels/${randomUUID()}/agents`, { agentId: 'nope' }],
      ['GET', '/api/messaging/dm-channel?currentUserId=a'],
    ];
    for (const [method, path, body] of bad) {
      const answer = await call(method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 400 });
      expect(answer.error?.code).toBe('BAD_REQUEST');
    }
    const taken = await createChannel({ name: 'taken' });
    const unknown = randomUUID();
    const missing: [string, string, unknown?][] = [
      ['GET', `/api/messaging/channels/${unknown}`],
      ['GET', `/api/messaging/channels/${unknown}/details`],
      ['PATCH', `/api/messaging/channels/${unknown}`, { name: 'x' }],
      ['DELETE', `/api/messaging/channels/${unknown}`],
      ['DELETE', `/api/messaging/channels/${unknown}/messages`],
      ['DELETE', `/api/messaging/channels/${unknown}/messages/${randomUUID()}`],
      ['POST', `/api/messaging/channels/${unknown}/agents`, { agentId: AGENT_B.id }],
      ['POST', `/api/messaging/channels/${taken.id}/agents`, { agentId: randomUUID() }],
      ['POST', '/api/messaging/channels', { name: 'x', message_server_id: randomUUID() }],
    ];
    for (const [method, path, body] of missing) {
      const answer = await call(method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
    }
    expect(
      (await call('POST', '/api/messaging/channels', { id: taken.id, name: 'again' })).status,
    ).toBe(409);
  });
});
