import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { parseSse } from '../../test/sse';
import { startTestServer } from '../../test/test-server';
import type { ModelProvider, ModelStreamPart } from '../models/model-provider';
import { createDatabase } from '../storage/create-database';

/**
 * A cancel racing the reply's final store, from outside: the database is slowed (a trigger sleeps in every
 * insert of a reply) so that the store takes a while, and cancels land before, during and after it. Each round
 * must be one of two stories, never a mix: 409 and the reply stands (streamed to its end, in history, a
 * `reply.completed` webhook) or 202 and nothing of it exists (`CANCELLED`, not in history, a `reply.failed`
 * webhook and no `reply.completed`). On PostgreSQL a second process takes half of the cancels.
 */

const TEXT = 'A reply that is stored whole, or not at all.';
/** How long the database takes to store a reply (s); the cancels are spread over the model's answer and it. */
const STORE_SECONDS = 0.25;
const ROUNDS = 24;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A model that answers in small pieces a few milliseconds apart, as a live one does. */
const pacedModel: ModelProvider = {
  name: 'paced',
  callsTools: false,
  async *stream(request): AsyncIterable<ModelStreamPart> {
    const document = `<response><thought>t</thought><actions>REPLY</actions><text>${TEXT}</text></response>`;
    for (let i = 0; i < document.length; i += 16) {
      await sleep(5);
      if (request.signal?.aborted) throw new Error('aborted');
      yield { type: 'text-delta', delta: document.slice(i, i + 16) };
    }
  },
};

/** Makes every insert of an agent's reply take STORE_SECONDS in the database itself. */
async function slowReplies(location: TestDatabase['location']): Promise<void> {
  const database = createDatabase(location);
  try {
    await database.migrate();
    await sql
      .raw(
        `CREATE FUNCTION test_slow_reply() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN PERFORM pg_sleep(${STORE_SECONDS}); RETURN NEW; END $$`,
      )
      .execute(database.db);
    await sql
      .raw(
        `CREATE TRIGGER test_slow_reply BEFORE INSERT ON messages FOR EACH ROW
         WHEN (NEW.source_type = 'agent_response') EXECUTE FUNCTION test_slow_reply()`,
      )
      .execute(database.db);
  } finally {
    await database.close();
  }
}

/** A webhook receiver on loopback: the reply id of each event, by type. */
async function startReceiver() {
  const events: { type: string; replyId: string }[] = [];
  const server = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const event = JSON.parse(body) as {
        type: string;
        data: { replyId?: string; reply?: { id: string } };
      };
      events.push({ type: event.type, replyId: event.data.replyId ?? event.data.reply?.id ?? '' });
      response.writeHead(200).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    events,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Posts a `stream` message; resolves `replyId` when the stream names it, `events` at its end. */
function openStream(url: string, channelId: string) {
  let named!: (id: string) => void;
  const replyId = new Promise<string>((resolve) => (named = resolve));
  const events = (async () => {
    const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello', entityId: 'user-1', mode: 'stream' }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const start = parseSse(text).find((event) => event.event === 'user_message');
      if (start) named((start.data as { replyId: string }).replyId);
    }
    return parseSse(text);
  })();
  return { replyId, events };
}

async function historyIds(url: string, channelId: string): Promise<string[]> {
  const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages?limit=50`);
  return ((await response.json()) as { data: { messages: { id: string }[] } }).data.messages.map(
    (message) => message.id,
  );
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0).reverse()) await dispose();
});

describe.each(await databaseKinds())(
  'a cancel racing the final store, on $name',
  ({ name, create, skip }) => {
    it.skipIf(skip)(
      'is 409 and the reply stands, or 202 and nothing of it is stored or delivered; never both',
      async () => {
        const receiver = await startReceiver();
        cleanup.push(() => receiver.close());
        const database = await create();
        await slowReplies(database.location);
        const options = {
          model: pacedModel,
          webhooks: { privateTargets: ['127.0.0.1'], pollMs: 20, retryDelaysMs: [30, 30] },
        };
        const first = await startTestServer(options, database);
        cleanup.push(async () => {
          await first[Symbol.asyncDispose]();
        });
        const urls = [first.url];
        if (name === 'postgres') {
          // A second process on the same database: half of the cancels cross processes.
          const second = await startTestServer(options, { ...database, dispose: async () => {} });
          cleanup.push(async () => {
            await second[Symbol.asyncDispose]();
          });
          urls.push(second.url);
        }
        const subscribed = await fetch(`${first.url}/api/webhooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: receiver.url, events: ['reply.completed', 'reply.failed'] }),
        });
        expect(subscribed.status).toBe(201);

        const cancelled: string[] = [];
        const stood: string[] = [];
        const channelId = randomUUID();
        for (let round = 0; round < ROUNDS; round += 1) {
          const stream = openStream(first.url, channelId);
          const replyId = await stream.replyId;
          // Spread over the model's answer (~30 ms) and the store (STORE_SECONDS), and a little after.
          await sleep((round / ROUNDS) * (STORE_SECONDS * 1000 + 150));
          const answer = await fetch(
            `${urls[round % urls.length]}/api/messaging/replies/${replyId}/cancel`,
            {
              method: 'POST',
            },
          );
          const events = await stream.events;
          const last = events.at(-1)!;
          if (answer.status === 202) {
            cancelled.push(replyId);
            expect(last).toMatchObject({ event: 'error', data: { code: 'CANCELLED' } });
          } else {
            expect(answer.status).toBe(409);
            stood.push(replyId);
            expect(last).toMatchObject({ event: 'done', data: { text: TEXT } });
          }
        }
        // Every reply's store is over: a cancelled one that was stored anyway would be in history by now.
        await sleep(STORE_SECONDS * 1000 * 2);
        const history = await historyIds(first.url, channelId);
        expect(cancelled.filter((id) => history.includes(id))).toEqual([]);
        expect(stood.filter((id) => !history.includes(id))).toEqual([]);

        // Webhooks: each reply that stood is completed, each cancelled one failed; none is both.
        const ofType = (type: string) =>
          receiver.events.filter((event) => event.type === type).map((event) => event.replyId);
        await expect
          .poll(() => ofType('reply.completed').length + ofType('reply.failed').length, {
            timeout: 20_000,
          })
          .toBeGreaterThanOrEqual(ROUNDS);
        await sleep(500); // a late duplicate would arrive meanwhile
        expect(ofType('reply.completed').sort()).toEqual([...stood].sort());
        expect(ofType('reply.failed').sort()).toEqual([...cancelled].sort());
        // The race was run: cancels landed on both sides of the store.
        expect(cancelled.length).toBeGreaterThan(0);
        expect(stood.length).toBeGreaterThan(0);
      },
      120_000,
    );
  },
);
