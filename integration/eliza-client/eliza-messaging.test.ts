import { randomUUID } from 'node:crypto';
import { ElizaClient } from '@elizaos/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

/*
 * elizaOS's own client, `@elizaos/api-client` 1.7.2 from npm, against a real Parley server: its 14 channel and
 * message calls, each checked against the shape its types promise (not just "did not throw"). The table of
 * results is in docs/decisions.md ("elizaOS compatibility"). Agents, sessions and message servers are tested in
 * eliza-agents.test.ts.
 */

const API_KEY = 'eliza-client-key';
const AGENT = { name: 'Eliza', id: 'b850bc30-45f8-0041-a00a-83df46d8555d' };
const DEFAULT_SERVER_ID = '00000000-0000-0000-0000-000000000000';
/** elizaOS's ChannelType enum values (its `@elizaos/core` types are not needed for two strings). */
const GROUP = 'GROUP' as never;

let running: TestServer;
let eliza: ElizaClient;

beforeAll(async () => {
  running = await startServer({ authToken: API_KEY, characters: [AGENT] });
  eliza = new ElizaClient({ baseUrl: running.url, apiKey: API_KEY });
});
afterAll(() => running?.server.stop());

const isInstant = (value: unknown) =>
  (value instanceof Date || typeof value === 'string') && !Number.isNaN(new Date(value).getTime());
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** elizaOS's `MessageChannel`. */
function expectChannel(value: unknown, fields: Record<string, unknown> = {}) {
  const channel = value as Record<string, unknown>;
  expect(channel.id).toMatch(UUID);
  expect(channel.messageServerId).toBe(DEFAULT_SERVER_ID);
  expect(typeof channel.name).toBe('string');
  expect(['GROUP', 'DM']).toContain(channel.type);
  expect(isInstant(channel.createdAt)).toBe(true);
  expect(isInstant(channel.updatedAt)).toBe(true);
  expect(typeof channel.metadata).toBe('object');
  expect(channel).toMatchObject(fields);
  return channel as { id: string; name: string; type: string; metadata: Record<string, unknown> };
}

/** elizaOS's `Message`. */
function expectMessage(value: unknown, fields: Record<string, unknown> = {}) {
  const message = value as Record<string, unknown>;
  expect(message.id).toMatch(UUID);
  expect(message.channelId).toMatch(UUID);
  expect(typeof message.authorId).toBe('string');
  expect(typeof message.content).toBe('string');
  expect(isInstant(message.createdAt)).toBe(true);
  expect(isInstant(message.updatedAt)).toBe(true);
  expect(message).toMatchObject(fields);
  return message as { id: string; channelId: string; content: string };
}

const newChannel = (name = 'eliza-client') =>
  eliza.messaging.createChannel({ name, type: GROUP, metadata: { from: 'api-client' } });

describe('@elizaos/api-client 1.7.2 messaging calls against Parley', () => {
  it('messaging.submitMessage stores an agent message', async () => {
    const channelId = randomUUID();
    const message = await eliza.messaging.submitMessage({
      agentId: AGENT.id as never,
      channelId: channelId,
      content: 'Deploy finished',
      metadata: { agentName: 'Eliza' },
    });
    expectMessage(message, { channelId, authorId: AGENT.id, content: 'Deploy finished' });
  });

  it('messaging.createChannel creates a channel', async () => {
    const channel = await newChannel('Launch');
    expectChannel(channel, { name: 'Launch', type: 'GROUP', metadata: { from: 'api-client' } });
  });

  it('messaging.createGroupChannel creates a channel with its participants', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const channel = await eliza.messaging.createGroupChannel({
      name: 'Team',
      participantIds: [a, b],
      metadata: { topic: 'planning' },
    });
    expectChannel(channel, { name: 'Team', type: 'GROUP' });
    const { participants } = await eliza.messaging.getChannelParticipants(channel.id);
    expect(participants.map((participant) => participant.userId).sort()).toEqual([a, b].sort());
  });

  it('messaging.getOrCreateDmChannel answers one DM channel to both sides', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const first = await eliza.messaging.getOrCreateDmChannel({ participantIds: [a, b] as never });
    const second = await eliza.messaging.getOrCreateDmChannel({ participantIds: [b, a] as never });
    expectChannel(first, { type: 'DM' });
    expect(second.id).toBe(first.id);
  });

  it('messaging.getChannelDetails reads a channel', async () => {
    const channel = await newChannel('Details');
    const details = await eliza.messaging.getChannelDetails(channel.id);
    expectChannel(details, { id: channel.id, name: 'Details' });
  });

  it('messaging.getChannelParticipants lists ChannelParticipants', async () => {
    const channel = await newChannel();
    await eliza.messaging.addAgentToChannel(channel.id, AGENT.id as never);
    const result = await eliza.messaging.getChannelParticipants(channel.id);
    expect(result.participants).toHaveLength(1);
    const [participant] = result.participants;
    expect(participant).toMatchObject({ channelId: channel.id, userId: AGENT.id });
    expect(typeof participant!.id).toBe('string');
    expect(isInstant(participant!.joinedAt)).toBe(true);
  });

  it('messaging.addAgentToChannel: the agent joins', async () => {
    const channel = await newChannel();
    const result = await eliza.messaging.addAgentToChannel(channel.id, AGENT.id as never);
    expect(result.success).toBe(true);
    expect((await eliza.messaging.getChannelDetails(channel.id)) as unknown).toMatchObject({
      agentId: AGENT.id,
    });
  });

  it('messaging.removeAgentFromChannel: the agent leaves', async () => {
    const channel = await newChannel();
    await eliza.messaging.addAgentToChannel(channel.id, AGENT.id as never);
    const result = await eliza.messaging.removeAgentFromChannel(channel.id, AGENT.id as never);
    expect(result.success).toBe(true);
    const { participants } = await eliza.messaging.getChannelParticipants(channel.id);
    expect(participants).toEqual([]);
  });

  it('messaging.updateChannel renames a channel (the channel, as elizaOS servers answer)', async () => {
    const channel = await newChannel('Before');
    const member = randomUUID();
    // Its type promises `{ success, data }`, but the client unwraps the envelope, so what elizaOS's own server
    // answers (and Parley answers) reaches the caller as the channel itself.
    const result = (await eliza.messaging.updateChannel(channel.id, {
      name: 'After',
      participantCentralUserIds: [member],
    })) as unknown;
    expectChannel(result, { id: channel.id, name: 'After' });
    const { participants } = await eliza.messaging.getChannelParticipants(channel.id);
    expect(participants.map((participant) => participant.userId)).toEqual([member]);
  });

  it('messaging.postMessage posts a message the agent answers', async () => {
    const channel = await newChannel();
    const message = await eliza.messaging.postMessage(channel.id, 'Hello there', {
      user_display_name: 'Ada',
    });
    expectMessage(message, { channelId: channel.id, content: 'Hello there' });
    // The offline agent answers on the socket and stores its reply.
    await expect
      .poll(async () => (await eliza.messaging.getChannelMessages(channel.id)).messages.length, {
        timeout: 10_000,
      })
      .toBe(2);
  });

  it('messaging.getChannelMessages pages with before as epoch ms', async () => {
    const channelId = randomUUID();
    for (const content of ['one', 'two', 'three']) {
      await eliza.messaging.submitMessage({
        agentId: AGENT.id as never,
        channelId: channelId,
        content,
      });
    }
    const { messages } = await eliza.messaging.getChannelMessages(channelId, { limit: 2 });
    expect(messages.map((message) => message.content)).toEqual(['three', 'two']);
    for (const message of messages) expectMessage(message, { channelId });
    const before = new Date(messages[1]!.createdAt).getTime();
    const older = await eliza.messaging.getChannelMessages(channelId, {
      before: String(before),
    });
    expect(older.messages.map((message) => message.content)).toEqual(['one']);
  });

  it('messaging.deleteMessage deletes one message', async () => {
    const channelId = randomUUID();
    const message = await eliza.messaging.submitMessage({
      agentId: AGENT.id as never,
      channelId: channelId,
      content: 'oops',
    });
    const result = await eliza.messaging.deleteMessage(channelId, message.id);
    expect(result.success).toBe(true);
    const { messages } = await eliza.messaging.getChannelMessages(channelId);
    expect(messages).toEqual([]);
  });

  it('messaging.clearChannelHistory deletes every message', async () => {
    const channelId = randomUUID();
    for (const content of ['a', 'b']) {
      await eliza.messaging.submitMessage({
        agentId: AGENT.id as never,
        channelId: channelId,
        content,
      });
    }
    const result = await eliza.messaging.clearChannelHistory(channelId);
    expect(result.deleted).toBe(2);
    expect((await eliza.messaging.getChannelMessages(channelId as never)).messages).toEqual([]);
  });

  it('messaging.deleteChannel deletes the channel', async () => {
    const channel = await newChannel('Doomed');
    const result = await eliza.messaging.deleteChannel(channel.id);
    expect(result.success).toBe(true);
    await expect(eliza.messaging.getChannelDetails(channel.id)).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });
});
