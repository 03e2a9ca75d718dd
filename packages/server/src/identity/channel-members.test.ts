import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { createDatabase, type Database } from '../storage/create-database';
import { ChannelAccess } from './channel-access';

/**
 * The membership store on each database (migration 0025): ownership of a new id is decided in the database, so
 * that people claiming one id together (in one process or several) leave exactly one owner, and a deleted
 * channel takes its members with it.
 */
const kinds = await databaseKinds();

describe.each(kinds)('channel members on $name', ({ create, skip }) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let access: ChannelAccess;
  const user = (entityId: string) => ({
    kind: 'user' as const,
    entityId,
    roles: new Set(['user']),
  });

  beforeAll(async () => {
    if (skip) return;
    testDatabase = await create();
    database = createDatabase(testDatabase.location);
    await database.migrate();
    access = new ChannelAccess(database.db);
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.dispose();
  });

  it.skipIf(skip)('50 people claiming one new id together: exactly one owns it', async () => {
    const channelId = randomUUID();
    const people = Array.from({ length: 50 }, (_, i) => `p${i}`);
    const outcomes = await Promise.allSettled(
      people.map((person) => access.assertPost(user(person), channelId)),
    );
    const owners = people.filter((_, i) => outcomes[i]!.status === 'fulfilled');
    expect(owners).toHaveLength(1);
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.status === 'rejected') {
        expect(outcome.reason).toMatchObject({ code: 'FORBIDDEN' });
        expect(await access.canRead(user(people[i]!), channelId)).toBe(false);
      }
    }
    expect(await access.canRead(user(owners[0]!), channelId)).toBe(true);
  });

  it.skipIf(skip)(
    'an existing channel nobody claimed is not claimable; admins read everything',
    async () => {
      const channelId = randomUUID();
      await database.db
        .insertInto('channels')
        .values({ id: channelId, server_id: randomUUID(), agent_id: null, created_at: new Date() })
        .execute();
      await expect(access.assertPost(user('mallory'), channelId)).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      expect(await access.canRead(undefined, channelId)).toBe(true);
      expect(
        await access.canRead({ kind: 'admin', entityId: 'ops', roles: new Set() }, channelId),
      ).toBe(true);
    },
  );

  it.skipIf(skip)(
    'deleting a channel removes its members: the id used again starts with nobody',
    async () => {
      const channelId = randomUUID();
      await database.db
        .insertInto('channels')
        .values({ id: channelId, server_id: randomUUID(), agent_id: null, created_at: new Date() })
        .execute();
      await access.recordOwner(user('alice'), channelId);
      await access.addMember(channelId, 'bob');
      expect(await access.canRead(user('bob'), channelId)).toBe(true);
      await database.db.deleteFrom('channels').where('id', '=', channelId).execute();
      const left = await sql<{ n: number }>`select count(*)::int as n from channel_members
      where channel_id = ${channelId}::uuid`.execute(database.db);
      expect(left.rows[0]!.n).toBe(0);
      await access.assertPost(user('carol'), channelId);
      expect(await access.canRead(user('alice'), channelId)).toBe(false);
      expect(await access.canRead(user('carol'), channelId)).toBe(true);
    },
  );
});
