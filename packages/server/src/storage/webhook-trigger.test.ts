import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredMessage } from '@parley/core';
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, databaseKinds, type TestDatabase } from '../../test/databases';
import { newMessage as message } from '../../test/new-message';
import { createDatabase, type Database } from './create-database';
import { MessageStore, type NewMessage } from './message-store';
import { migrationProvider } from './migrations';
import type { DatabaseSchema } from './schema';

/** A database of `kind` with no migration run yet (the PGlite template is migrated to the latest). */
async function emptyDatabase(kind: string): Promise<TestDatabase> {
  if (kind === 'postgres') return createPostgresDatabase();
  const dir = await mkdtemp(join(tmpdir(), 'parley-webhook-trigger-'));
  return {
    name: 'pglite',
    location: { kind: 'pglite', dataDir: dir },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

interface Batch {
  channels: { first: string; second: string };
  /** Stored in an earlier statement: answered by a reply of the batch. */
  earlier: NewMessage;
  /** The id a reply of the batch answers, never stored. */
  missing: string;
  /** Stored in one statement: a question and its reply among them. */
  batch: NewMessage[];
}

/** Every shape the trigger tells apart, in two channels. */
function newBatch(): Batch {
  const first = randomUUID();
  const second = randomUUID();
  const reply = { sourceType: 'agent_response', authorId: 'agent-1', authorName: 'Agent' };
  const earlier = message(second, 'asked earlier');
  const question = message(first, 'a question', { rawMessage: { text: 'a question' } });
  const missing = randomUUID();
  return {
    channels: { first, second },
    earlier,
    missing,
    batch: [
      question,
      message(first, 'the answer', {
        ...reply,
        inReplyTo: question.id,
        rawMessage: { text: 'the answer', actions: ['REPLY'] },
      }),
      message(second, 'a later answer', { ...reply, inReplyTo: earlier.id }),
      message(second, 'an answer to nothing stored', { ...reply, inReplyTo: missing }),
      message(second, 'an agent post, no question', { ...reply }),
      message(second, 'not a reply, though it names one', { inReplyTo: earlier.id }),
    ],
  };
}

/** Subscriptions of every kind: all channels, one channel, one event, disabled. */
async function subscribe(db: Kysely<DatabaseSchema>, channels: Batch['channels']) {
  await db.deleteFrom('webhook_subscriptions').execute();
  const rows = [
    { url: 'https://all.example/', events: ['message.created', 'reply.completed'], channel: null },
    { url: 'https://first.example/', events: ['reply.completed'], channel: channels.first },
    { url: 'https://created.example/', events: ['message.created'], channel: null },
    { url: 'https://second.example/', events: ['message.created'], channel: channels.second },
    {
      url: 'https://disabled.example/',
      events: ['message.created', 'reply.completed'],
      channel: null,
      disabled: true,
    },
  ];
  await db
    .insertInto('webhook_subscriptions')
    .values(
      rows.map((row) => ({
        id: randomUUID(),
        url: row.url,
        events: JSON.stringify(row.events),
        channel_id: row.channel,
        secret: 'whsec_test',
        disabled_at: row.disabled ? new Date() : null,
        disabled_reason: row.disabled ? 'gone' : null,
      })),
    )
    .execute();
}

interface Delivery {
  url: string;
  event_type: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

async function deliveries(db: Kysely<DatabaseSchema>): Promise<Delivery[]> {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .select(['s.url', 'd.event_type', 'd.payload'])
    .execute();
  return rows as unknown as Delivery[];
}

/**
 * Stores `batch.earlier`, then the batch in one statement (the store gathers inserts made in one tick into one
 * statement: counted here), and returns the stored messages.
 */
async function store(db: Kysely<DatabaseSchema>, batch: Batch): Promise<StoredMessage[]> {
  let statements = 0;
  const counted = db.withPlugin({
    transformQuery: (args) => {
      statements += 1;
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  });
  const messages = new MessageStore(counted);
  const earlier = await messages.insert(batch.earlier);
  statements = 0;
  const stored = await Promise.all(batch.batch.map((each) => messages.insert(each)));
  expect(statements).toBe(1);
  return [earlier, ...stored];
}

/** The deliveries with the batch's ids as names and the time of sending left out, in one order. */
function comparable(list: Delivery[], batch: Batch): string[] {
  const names = new Map<string, string>([
    [batch.channels.first, 'channel-1'],
    [batch.channels.second, 'channel-2'],
    [batch.earlier.id, 'earlier'],
    [batch.missing, 'missing'],
    ...batch.batch.map((each, index) => [each.id, `message-${index}`] as [string, string]),
  ]);
  return list
    .map(({ url, event_type, payload }) => {
      let text = JSON.stringify({ url, event_type, payload: { ...payload, timestamp: 'T' } });
      for (const [id, name] of names) text = text.replaceAll(id, name);
      // The created_at of each message differs between two batches; the names above tell them apart.
      return text.replace(/"created_at":"[^"]+"/g, '"created_at":"C"');
    })
    .sort();
}

describe.each(await databaseKinds())('webhook trigger on $name', ({ name, skip }) => {
  const opened: { database: Database; testDatabase: TestDatabase }[] = [];
  afterAll(async () => {
    for (const { database, testDatabase } of opened) {
      await database.close();
      await testDatabase.dispose();
    }
  });

  async function open(): Promise<Database> {
    const testDatabase = await emptyDatabase(name);
    const database = createDatabase(testDatabase.location);
    opened.push({ database, testDatabase });
    return database;
  }

  it.skipIf(skip)(
    'writes no delivery while no subscription is enabled, and the row trigger is gone',
    async () => {
      const database = await open();
      await database.migrate();
      const { db } = database;
      const batch = newBatch();
      await subscribe(db, batch.channels);
      await db.updateTable('webhook_subscriptions').set({ disabled_at: new Date() }).execute();
      await store(db, batch);
      expect(await deliveries(db)).toEqual([]);
      const triggers = await sql<{ tgname: string }>`
        SELECT tgname FROM pg_trigger WHERE tgrelid = 'messages'::regclass AND NOT tgisinternal
      `.execute(db);
      expect(triggers.rows.map((row) => row.tgname)).toEqual(['parley_webhook_on_messages']);
    },
  );

  it.skipIf(skip)(
    "writes the row trigger's deliveries for a batch holding a question and its reply",
    async () => {
      const database = await open();
      const { db } = database;
      // Before: the row trigger of 0010, one run per stored message.
      const migrator = new Migrator({ db, provider: migrationProvider });
      const before = await migrator.migrateTo('0011_idempotency_keys');
      expect(before.error).toBeUndefined();
      // Today's store also moves each channel's activity (columns of 0016): lend the old schema those two
      // columns for this phase, and take them back before migrating.
      await sql`ALTER TABLE channels ADD COLUMN updated_at timestamptz,
                ADD COLUMN last_message_at timestamptz`.execute(db);
      const first = newBatch();
      await subscribe(db, first.channels);
      await store(db, first);
      const byRow = await deliveries(db);
      await sql`ALTER TABLE channels DROP COLUMN updated_at, DROP COLUMN last_message_at`.execute(
        db,
      );

      // After: the statement trigger of 0012, one run per statement.
      await db.deleteFrom('webhook_deliveries').execute();
      await database.migrate();
      const second = newBatch();
      await subscribe(db, second.channels);
      const stored = await store(db, second);
      const byStatement = await deliveries(db);

      expect(byStatement).toHaveLength(byRow.length);
      expect(comparable(byStatement, second)).toEqual(comparable(byRow, first));

      // And what that is, spelled out: the messages as the API returns them.
      const [earlier, question, answer, laterAnswer, answerToNothing] = stored;
      const of = (url: string, type: string) =>
        byStatement
          .filter((each) => each.url === url && each.event_type === type)
          .map((each) => each.payload.data);
      expect(of('https://all.example/', 'reply.completed')).toEqual(
        expect.arrayContaining([
          { channelId: second.channels.first, reply: answer, message: question },
          { channelId: second.channels.second, reply: laterAnswer, message: earlier },
          { channelId: second.channels.second, reply: answerToNothing, message: null },
        ]),
      );
      expect(of('https://all.example/', 'reply.completed')).toHaveLength(3);
      expect(of('https://first.example/', 'reply.completed')).toEqual([
        { channelId: second.channels.first, reply: answer, message: question },
      ]);
      expect(of('https://created.example/', 'message.created')).toHaveLength(7);
      expect(of('https://second.example/', 'message.created')).toHaveLength(5);
      expect(of('https://created.example/', 'message.created')).toContainEqual({
        channelId: second.channels.first,
        message: question,
      });
      expect(byStatement.filter((each) => each.url === 'https://disabled.example/')).toEqual([]);
      for (const each of byStatement) {
        expect(each.payload.type).toBe(each.event_type);
        expect(each.payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
    },
  );
});
