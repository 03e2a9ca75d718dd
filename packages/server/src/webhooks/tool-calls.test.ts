import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { newMessage } from '../../test/new-message';
import { ReplyStream } from '../reply/parts/reply-stream';
import { createDatabase, type Database } from '../storage/create-database';
import { MessageStore } from '../storage/message-store';
import { createWebhooks } from './index';

const records = [
  { toolCallId: 'c1', toolName: 'LOOKUP', input: { q: 'weather' }, output: { text: 'hot' } },
  { toolCallId: 'c2', toolName: 'MADE_UP', input: {}, error: 'Unknown tool MADE_UP' },
];

interface Payload {
  type: string;
  data: Record<string, unknown> & { reply?: { raw_message: unknown } };
}

describe.each(await databaseKinds())(
  'webhook events of a reply that called tools, on $name',
  ({ create, skip }) => {
    const opened: { database: Database; testDatabase: TestDatabase }[] = [];
    afterAll(async () => {
      for (const { database, testDatabase } of opened) {
        await database.close();
        await testDatabase.dispose();
      }
    });

    /** A migrated database with one subscription to every event of every channel. */
    async function subscribed(): Promise<Database> {
      const testDatabase = await create();
      const database = createDatabase(testDatabase.location);
      opened.push({ database, testDatabase });
      await database.migrate();
      await database.db
        .insertInto('webhook_subscriptions')
        .values({
          id: randomUUID(),
          url: 'https://hooks.example/',
          events: JSON.stringify(['reply.completed', 'reply.failed']),
          channel_id: null,
          secret: 'whsec_test',
          disabled_at: null,
          disabled_reason: null,
        })
        .execute();
      return database;
    }

    async function payloads(database: Database, type: string): Promise<Payload[]> {
      const rows = await database.db
        .selectFrom('webhook_deliveries')
        .select('payload')
        .where('event_type', '=', type)
        .execute();
      return rows.map((row) => row.payload as unknown as Payload);
    }

    it.skipIf(skip)('reply.completed carries the stored raw_message.toolCalls', async () => {
      const database = await subscribed();
      const store = new MessageStore(database.db, { sync: () => database.sync() });
      const channelId = randomUUID();
      const question = await store.insert(newMessage(channelId, 'Weather?'));
      const reply = await store.insert(
        newMessage(channelId, 'Hot.', {
          authorId: 'agent-1',
          authorName: 'Eliza',
          sourceType: 'agent_response',
          inReplyTo: question.id,
          rawMessage: { text: 'Hot.', actions: ['LOOKUP', 'REPLY'], toolCalls: records },
        }),
      );
      const [completed, ...more] = await payloads(database, 'reply.completed');
      expect(more).toEqual([]);
      expect(completed!.data.reply).toEqual(reply);
      expect(completed!.data.reply!.raw_message).toEqual({
        text: 'Hot.',
        actions: ['LOOKUP', 'REPLY'],
        toolCalls: records,
      });
    });

    it.skipIf(skip)(
      'reply.failed carries the tool calls made before the failure, with their outcomes',
      async () => {
        const database = await subscribed();
        const webhooks = createWebhooks(database.db, { logger: pino({ level: 'silent' }) });
        const channelId = randomUUID();
        const replyId = randomUUID();
        const stream = new ReplyStream(replyId, channelId, 'question-1');
        webhooks.failedReplies(stream);
        const ids = { replyId, step: 0 };
        stream.write({
          type: 'reply-start',
          replyId,
          channelId,
          agentId: 'agent-1',
          agentName: 'Eliza',
          inReplyTo: 'question-1',
        });
        for (const { output, error, ...call } of records) {
          stream.write({ type: 'tool-call', ...ids, ...call });
          stream.write({ type: 'tool-result', ...ids, ...call, output, error });
        }
        // A call still running when the reply failed: no outcome.
        stream.write({ type: 'tool-call', ...ids, toolCallId: 'c3', toolName: 'SLOW', input: {} });
        stream.write({
          type: 'error',
          replyId,
          code: 'CANCELLED',
          message: 'The reply was cancelled',
        });

        await expect.poll(async () => (await payloads(database, 'reply.failed')).length).toBe(1);
        const [failed] = await payloads(database, 'reply.failed');
        expect(failed!.data).toEqual({
          channelId,
          replyId,
          messageId: 'question-1',
          error: { code: 'CANCELLED', message: 'The reply was cancelled' },
          toolCalls: [...records, { toolCallId: 'c3', toolName: 'SLOW', input: {} }],
        });
        await webhooks.close();
      },
    );
  },
);
