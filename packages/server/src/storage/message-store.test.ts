import { randomUUID } from 'node:crypto';
import { DEFAULT_SERVER_ID } from '@parley/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { newMessage } from '../../test/new-message';
import { createDatabase, type Database } from './create-database';
import { MessageStore } from './message-store';

const kinds = await databaseKinds();

describe.each(kinds)('message store on $name', ({ create, skip, name }) => {
  // One database per kind: every test works in channels of its own.
  let testDatabase: TestDatabase | undefined;
  let database: Database | undefined;
  let store: MessageStore;

  async function open() {
    testDatabase ??= await create();
    database = createDatabase(testDatabase.location);
    await database.migrate();
    store = new MessageStore(database.db, { sync: () => database!.sync() });
    return store;
  }

  beforeAll(async () => {
    if (!skip) await open();
  });

  afterAll(async () => {
    await database?.close();
    await testDatabase?.dispose();
  });

  it.skipIf(skip)('stores messages, creating the channel on first use', async () => {
    const channelId = randomUUID();
    const agentId = randomUUID();
    const stored = await store.insert(
      newMessage(channelId, 'hello', {
        channelAgentId: agentId,
        rawMessage: { text: 'hello', actions: ['REPLY'] },
      }),
    );
    expect(stored).toMatchObject({ channel_id: channelId, content: 'hello', in_reply_to: null });
    expect(await store.getChannel(channelId)).toEqual({
      id: channelId,
      serverId: DEFAULT_SERVER_ID,
      agentId,
    });
    const [listed] = await store.list(channelId, { limit: 10 });
    expect(listed).toEqual(stored);
  });

  it.skipIf(skip)(
    "sees a channel's agent set by another writer, and keeps it once set",
    async () => {
      // Another process's store on the same database.
      const other = new MessageStore(database!.db);
      const channelId = randomUUID();
      await store.insert(newMessage(channelId, 'no agent yet'));
      expect((await store.getChannel(channelId))?.agentId).toBeNull();
      const agentId = randomUUID();
      await other.insert(newMessage(channelId, 'from elsewhere', { channelAgentId: agentId }));
      // A channel without an agent was not remembered: the agent the other writer set is seen.
      expect((await store.getChannel(channelId))?.agentId).toBe(agentId);
      // Once set it stays: a later writer naming another agent does not change it, here or there.
      await other.insert(newMessage(channelId, 'again', { channelAgentId: randomUUID() }));
      expect((await store.getChannel(channelId))?.agentId).toBe(agentId);
      expect((await new MessageStore(database!.db).getChannel(channelId))?.agentId).toBe(agentId);
      // What a caller does with the record it got does not change the next one.
      const record = await store.getChannel(channelId);
      record!.agentId = 'changed by the caller';
      expect((await store.getChannel(channelId))?.agentId).toBe(agentId);
    },
  );

  it.skipIf(skip)('keeps concurrent writes in order and lists newest first', async () => {
    const channelId = randomUUID();
    const createdAt = new Date();
    // Same timestamp on purpose: insertion order must still decide.
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        store.insert(newMessage(channelId, `m${i}`, { createdAt })),
      ),
    );
    const listed = await store.list(channelId, { limit: 200 });
    expect(listed).toHaveLength(200);
    expect(listed[0]!.content).toBe('m299');
    expect(listed[199]!.content).toBe('m100');
  });

  it.skipIf(skip)(
    "writes a busy channel's activity once, then holds newer times until settled, never moving it back",
    async () => {
      const channelId = randomUUID();
      const lastMessageAt = async () =>
        (
          await database!.db
            .selectFrom('channels')
            .select('last_message_at')
            .where('id', '=', channelId)
            .executeTakeFirstOrThrow()
        ).last_message_at;
      const first = new Date('2026-01-01T00:00:00.000Z');
      await store.insert(newMessage(channelId, 'first', { createdAt: first }));
      expect(new Date((await lastMessageAt())!).toISOString()).toBe(first.toISOString());
      // Within the interval: the messages are stored, the channel's activity is held back from their batch.
      const second = new Date('2026-01-01T00:00:01.000Z');
      const third = new Date('2026-01-01T00:00:02.000Z');
      await Promise.all([
        store.insert(newMessage(channelId, 'third', { createdAt: third })),
        store.insert(newMessage(channelId, 'second', { createdAt: second })),
      ]);
      expect(await store.list(channelId, { limit: 10 })).toHaveLength(3);
      expect(new Date((await lastMessageAt())!).toISOString()).toBe(first.toISOString());
      await store.settleActivity();
      expect(new Date((await lastMessageAt())!).toISOString()).toBe(third.toISOString());
      // An older time later never moves it back.
      await store.insert(newMessage(channelId, 'late', { createdAt: second }));
      await store.flushed();
      expect(new Date((await lastMessageAt())!).toISOString()).toBe(third.toISOString());
    },
  );

  it.skipIf(skip)('pages with before', async () => {
    const channelId = randomUUID();
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 5; i++) {
      await store.insert(newMessage(channelId, `m${i}`, { createdAt: new Date(base + i * 1000) }));
    }
    const page = await store.list(channelId, { limit: 2, before: new Date(base + 3000) });
    expect(page.map((m) => m.content)).toEqual(['m2', 'm1']);
  });

  it.skipIf(skip)('fails only the bad message of a batch', async () => {
    const channelId = randomUUID();
    const duplicate = newMessage(channelId, 'first');
    await store.insert(duplicate);
    const results = await Promise.allSettled([
      store.insert(newMessage(channelId, 'ok-1')),
      store.insert({ ...duplicate, content: 'again' }),
      store.insert(newMessage(channelId, 'ok-2')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await store.list(channelId, { limit: 10 })).map((m) => m.content)).toEqual([
      'ok-2',
      'ok-1',
      'first',
    ]);
  });

  it.skipIf(skip)(
    'acknowledges a write only after the sync that follows it, once per batch',
    async () => {
      let syncs = 0;
      const syncing = new MessageStore(database!.db, {
        sync: () => {
          syncs += 1;
          return Promise.resolve();
        },
      });
      const channelId = randomUUID();
      const syncsSeen = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          syncing.insert(newMessage(channelId, `m${i}`)).then(() => syncs),
        ),
      );
      expect(syncsSeen.every((count) => count >= 1)).toBe(true);
      expect(syncs).toBeLessThan(50);
    },
  );

  it.skipIf(skip)('serves recent messages oldest first, from memory or not, the same', async () => {
    const cached = new MessageStore(database!.db, { recentCache: 5 });
    const channelId = randomUUID();
    for (let i = 0; i < 3; i++) await store.insert(newMessage(channelId, `before-${i}`));
    // First call loads from the database; the writes after it come from memory.
    expect((await cached.recent(channelId, 5)).map((m) => m.content)).toEqual([
      'before-0',
      'before-1',
      'before-2',
    ]);
    for (let i = 0; i < 4; i++) await cached.insert(newMessage(channelId, `after-${i}`));
    const fromMemory = await cached.recent(channelId, 5);
    const fromDatabase = await store.recent(channelId, 5);
    expect(fromMemory.map((m) => m.content)).toEqual([
      'before-2',
      'after-0',
      'after-1',
      'after-2',
      'after-3',
    ]);
    expect(fromMemory).toEqual(fromDatabase);
  });

  it.skipIf(skip)('keeps acknowledged writes across a reopen', async () => {
    const channelId = randomUUID();
    await store.insert(newMessage(channelId, 'durable'));
    // Across a switch to a new WAL segment, too (PGlite syncs the segment itself; PostgreSQL does nothing).
    if (name === 'pglite') await sql`select pg_switch_wal()`.execute(database!.db);
    await database!.sync();
    await store.insert(newMessage(channelId, 'durable'));
    await database!.close();
    const reopened = await open();
    // A fresh store has no cache: what it lists comes from disk.
    expect((await reopened.list(channelId, { limit: 5 })).map((m) => m.content)).toEqual([
      'durable',
      'durable',
    ]);
  });

  it.skipIf(skip)(
    'pages by message id without skipping messages that share a timestamp',
    async () => {
      const channelId = randomUUID();
      const createdAt = new Date();
      const sent = Array.from({ length: 60 }, (_, n) =>
        newMessage(channelId, `m${n}`, { createdAt }),
      );
      await Promise.all(sent.map((message) => store.insert(message)));
      const seen: string[] = [];
      let before: { messageId: string } | undefined;
      for (;;) {
        const page = await store.list(channelId, { limit: 7, before });
        if (page.length === 0) break;
        seen.push(...page.map((message) => message.id));
        before = { messageId: page.at(-1)!.id };
      }
      expect(seen).toHaveLength(60);
      expect(new Set(seen)).toEqual(new Set(sent.map((message) => message.id)));
    },
  );
});
