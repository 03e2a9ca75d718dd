import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../../test/databases';
import { createDatabase, type Database } from '../../storage/create-database';
import { ChannelSummaryStore } from './channel-summary-store';

/**
 * The running summaries' store on each database: what it remembers is forgotten with what is stored, and an
 * update begun before a summary was forgotten does not bring it back (it would carry what was forgotten).
 */
const kinds = await databaseKinds();

describe.each(kinds)('channel summaries on $name', ({ create, skip }) => {
  let testDatabase: TestDatabase;
  let database: Database;
  const agentId = randomUUID();

  beforeAll(async () => {
    if (skip) return;
    testDatabase = await create();
    database = createDatabase(testDatabase.location);
    await database.migrate();
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.dispose();
  });

  /** A channel with `count` messages by `authorId`; their ids, oldest first. */
  async function channelWith(authorId: string, count: number): Promise<string[]> {
    const channelId = randomUUID();
    await database.db
      .insertInto('channels')
      .values({ id: channelId, server_id: randomUUID(), agent_id: null, created_at: new Date() })
      .execute();
    const ids = Array.from({ length: count }, () => randomUUID());
    await database.db
      .insertInto('messages')
      .values(
        ids.map((id, index) => ({
          id,
          channel_id: channelId,
          server_id: randomUUID(),
          author_id: authorId,
          author_name: authorId,
          source_type: 'user',
          metadata: '{}',
          content: `turn ${index}`,
          created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)),
        })),
      )
      .execute();
    return [channelId, ...ids];
  }

  it.skipIf(skip)(
    "a person's memories deleted: their summaries are gone from memory too, and an update begun before does not bring one back",
    async () => {
      const store = new ChannelSummaryStore(database.db, { exclusive: true });
      const [channelId, first, second] = await channelWith('alice', 4);
      const summary = {
        summary: 'Alice said her code is ZEBRA-4417.',
        coveredUntil: first!,
        coveredCount: 1,
      };
      expect(await store.save(channelId!, agentId, summary, undefined)).toBe(true);
      expect(await store.remembered(channelId!, agentId)).toEqual(summary);

      expect(await store.forgetEntity(agentId, 'alice')).toBe(1);
      expect(await store.remembered(channelId!, agentId)).toBeUndefined();
      // A catch-up that read the summary before the deletion now stores its next step over it: refused.
      const next = {
        summary: `${summary.summary} Then more.`,
        coveredUntil: second!,
        coveredCount: 2,
      };
      expect(await store.save(channelId!, agentId, next, first)).toBe(false);
      expect(await store.get(channelId!, agentId)).toBeUndefined();
      expect(await store.remembered(channelId!, agentId)).toBeUndefined();
      // Rebuilt from the start, it is stored.
      const rebuilt = { summary: 'Rebuilt.', coveredUntil: second!, coveredCount: 2 };
      expect(await store.save(channelId!, agentId, rebuilt, undefined)).toBe(true);
      expect(await store.remembered(channelId!, agentId)).toEqual(rebuilt);
    },
  );

  it.skipIf(skip)('forgetting one channel forgets what is remembered of it only', async () => {
    const store = new ChannelSummaryStore(database.db, { exclusive: true });
    const [one, oneFirst] = await channelWith('bob', 2);
    const [two, twoFirst] = await channelWith('bob', 2);
    await store.save(
      one!,
      agentId,
      { summary: 'one', coveredUntil: oneFirst!, coveredCount: 1 },
      undefined,
    );
    await store.save(
      two!,
      agentId,
      { summary: 'two', coveredUntil: twoFirst!, coveredCount: 1 },
      undefined,
    );
    expect(await store.forget(agentId, one)).toBe(1);
    expect(await store.remembered(one!, agentId)).toBeUndefined();
    expect((await store.remembered(two!, agentId))?.summary).toBe('two');
  });
});
