import { randomUUID } from 'node:crypto';
import { ApiError, ElizaClient } from '@elizaos/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

/**
 * elizaOS's own client (`@elizaos/api-client` 1.7.2) pages history the way its callers do: `before` as a
 * `Date` (the client sends it as `String(date)`, a date string) and a `limit` above the server's maximum,
 * which elizaOS's server clamps rather than refuses.
 */
const TOKEN = 'eliza-history-token';
const AGENT = { name: 'Eliza', id: 'b850bc30-45f8-0041-a00a-83df46d8555d' };

let running: TestServer;
let eliza: ElizaClient;

beforeAll(async () => {
  running = await startServer({ authToken: TOKEN, characters: [AGENT] });
  eliza = new ElizaClient({ baseUrl: running.url, apiKey: TOKEN });
});
afterAll(() => running?.server.stop());

async function statusOf(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
  return undefined;
}

/** A channel with `count` agent messages, oldest first. */
async function channelWith(
  count: number,
): Promise<`${string}-${string}-${string}-${string}-${string}`> {
  const channelId = randomUUID();
  for (let index = 0; index < count; index += 1) {
    await eliza.messaging.submitMessage({
      agentId: AGENT.id as never,
      channelId,
      content: `m${index}`,
    });
  }
  return channelId;
}

describe('@elizaos/api-client 1.7.2: history paging', () => {
  it('messaging.getChannelMessages takes before as a Date (a date string on the wire)', async () => {
    const channelId = await channelWith(3);
    const later = await eliza.messaging.getChannelMessages(channelId, {
      before: new Date(Date.now() + 60_000),
    });
    expect(later.messages.map((message) => message.content)).toEqual(['m2', 'm1', 'm0']);
    const earlier = await eliza.messaging.getChannelMessages(channelId, {
      before: new Date(Date.now() - 3_600_000),
    });
    expect(earlier.messages).toEqual([]);
    // The same instant in the other form JavaScript prints dates in (`toUTCString`).
    const utc = await eliza.messaging.getChannelMessages(channelId, {
      before: new Date(Date.now() + 60_000).toUTCString(),
    });
    expect(utc.messages).toHaveLength(3);
  });

  it('a limit above the maximum is clamped, not refused', async () => {
    const channelId = await channelWith(3);
    const page = await eliza.messaging.getChannelMessages(channelId, { limit: 100_000 });
    expect(page.messages.map((message) => message.content)).toEqual(['m2', 'm1', 'm0']);
    const small = await eliza.messaging.getChannelMessages(channelId, { limit: 1 });
    expect(small.messages.map((message) => message.content)).toEqual(['m2']);
  });

  it('sessions.getMessages clamps its limit too', async () => {
    const session = await eliza.sessions.createSession({
      agentId: AGENT.id,
      userId: randomUUID(),
    });
    await eliza.sessions.sendMessage(session.sessionId, { content: 'hello', transport: 'http' });
    const { messages } = await eliza.sessions.getMessages(session.sessionId, {
      limit: 100_000,
      before: new Date(Date.now() + 60_000),
    });
    expect(messages).toHaveLength(2);
  });

  it('a before that is no date, or outside the years 1 to 9999, is a 400', async () => {
    const channelId = await channelWith(1);
    const statuses = await Promise.all(
      [
        'Xyz not a date',
        'Sat Nov 28 99999 12:00:00 GMT+0000',
        'Sat, 28 Nov -001000 12:00:00 GMT',
        `Sat ${'x'.repeat(200)}`,
        'yesterday',
      ].map((before) => statusOf(eliza.messaging.getChannelMessages(channelId, { before }))),
    );
    expect(statuses).toEqual([400, 400, 400, 400, 400]);
    expect(await statusOf(eliza.messaging.getChannelMessages(channelId, { limit: 0 }))).toBe(400);
  });
});
