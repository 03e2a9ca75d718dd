import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { ScriptedModel } from '../../test/scripted-model';
import { historyOf, postWithKey } from '../../test/keyed-requests';
import { startTestServer } from '../../test/test-server';

/**
 * What an `Idempotency-Key` holds a request to, attacked over HTTP: every field of the body that changes what
 * the request does is part of it (another value is a 409 CONFLICT, whatever else is the same), and the key
 * belongs to one client, so another `entityId` is never answered with someone else's message.
 */

/** The built-in Eliza's id: naming the default agent is still another request than naming none. */
const ELIZA = '955e388d-c317-59d3-82ac-e14d75bd8f41';

interface Answer {
  status: number;
  body: {
    userMessage?: { id: string };
    replyId?: string;
    agentResponse?: { text: string };
    error?: { code: string };
  };
}

async function post(url: string, channelId: string, body: unknown, key: string): Promise<Answer> {
  const response = await postWithKey(url, channelId, body, key);
  const text = await response.text();
  // A stream answer is SSE, not JSON: only its status matters here.
  return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : {} };
}

const kinds = await databaseKinds();

describe.each(kinds)('what a key holds a request to ($name)', ({ create, skip }) => {
  it.skipIf(skip)(
    'any other text, mode, senderName, metadata, agentId or ifBusy under the key is a 409 CONFLICT, and nothing more is stored',
    async () => {
      await using test = await startTestServer({ model: new ScriptedModel() }, await create());
      const { url } = test;
      const channelId = randomUUID();
      const key = `order-${randomUUID()}`;
      const base = {
        text: 'Book the table',
        entityId: 'user-1',
        mode: 'sync',
        senderName: 'Ann',
        metadata: { table: 4 },
      };
      const first = await post(url, channelId, base, key);
      expect(first.status).toBe(200);
      const variants = [
        { ...base, text: 'Book the table!' },
        { ...base, mode: 'stream' },
        { ...base, mode: 'websocket' },
        { ...base, senderName: 'Bob' },
        { ...base, metadata: { table: 5 } },
        { ...base, metadata: { table: 4, extra: true } },
        { ...base, agentId: ELIZA },
        { ...base, ifBusy: 'reject' },
        { ...base, ifBusy: 'interrupt' },
        { ...base, ifBusy: 'enqueue' },
      ];
      // One at a time: tries arriving together are also compared with each other, which would hide a field
      // left out of what the key remembers.
      const answers: Answer[] = [];
      for (const variant of variants) answers.push(await post(url, channelId, variant, key));
      expect(answers.map((answer) => [answer.status, answer.body.error?.code])).toEqual(
        variants.map(() => [409, 'CONFLICT']),
      );
      // The same body again, keys reordered, three at once: the first request's answer.
      const reordered = {
        metadata: { table: 4 },
        senderName: 'Ann',
        mode: 'sync',
        entityId: 'user-1',
        text: 'Book the table',
      };
      const again = await Promise.all([0, 1, 2].map(() => post(url, channelId, reordered, key)));
      for (const answer of again) {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({
          userMessage: { id: first.body.userMessage!.id },
          replyId: first.body.replyId,
        });
      }
      expect(await historyOf(url, channelId)).toHaveLength(2);
    },
    120_000,
  );

  it.skipIf(skip)(
    "another entityId with the same key and text is another client's request: its own message and reply, never the first's",
    async () => {
      await using test = await startTestServer({ model: new ScriptedModel() }, await create());
      const { url } = test;
      const channelId = randomUUID();
      const key = `order-${randomUUID()}`;
      const entities = ['alice', 'bob', 'carol', 'Alice'];
      const body = (entityId: string) => ({ text: 'Book the table', entityId, mode: 'sync' });
      const first = await post(url, channelId, body('alice'), key);
      expect(first.status).toBe(200);
      // Then everyone at once, alice's retry among them.
      const answers = await Promise.all(
        entities.map((entity) => post(url, channelId, body(entity), key)),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      const ids = answers.map((answer) => answer.body.userMessage!.id);
      expect(ids[0]).toBe(first.body.userMessage!.id);
      expect(new Set(ids).size).toBe(entities.length);
      expect(new Set(answers.map((answer) => answer.body.replyId)).size).toBe(entities.length);
      const stored = await historyOf(url, channelId);
      for (const [index, entity] of entities.entries()) {
        expect(stored.find((message) => message.id === ids[index])?.author_id).toBe(entity);
      }
      // Four messages and four replies: nobody's request was answered with another's.
      expect(stored).toHaveLength(2 * entities.length);
    },
    120_000,
  );
});
