import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { createDatabase, type Database } from '../storage/create-database';
import { claimDueDeliveries } from './claim-due-deliveries';

describe.each(await databaseKinds())('claiming due deliveries on $name', ({ create, skip }) => {
  const opened: { database: Database; testDatabase: TestDatabase }[] = [];
  afterAll(async () => {
    for (const { database, testDatabase } of opened) {
      await database.close();
      await testDatabase.dispose();
    }
  });

  /** A migrated database with subscriptions named as given, each with `due` deliveries due now. */
  async function withDeliveries(due: Record<string, number>): Promise<{
    database: Database;
    subscriptionOf: (deliveryId: string) => string;
  }> {
    const testDatabase = await create();
    const database = createDatabase(testDatabase.location);
    opened.push({ database, testDatabase });
    await database.migrate();
    const names = new Map<string, string>();
    const owner = new Map<string, string>();
    for (const [name, count] of Object.entries(due)) {
      const id = randomUUID();
      names.set(id, name);
      await database.db
        .insertInto('webhook_subscriptions')
        .values({
          id,
          url: `https://${name}.example/`,
          events: JSON.stringify(['message.created']),
          channel_id: null,
          secret: 'whsec_test',
          disabled_at: null,
          disabled_reason: null,
        })
        .execute();
      for (let i = 0; i < count; i += 1) {
        const deliveryId = randomUUID();
        owner.set(deliveryId, name);
        await database.db
          .insertInto('webhook_deliveries')
          .values({
            id: deliveryId,
            subscription_id: id,
            event_type: 'message.created',
            payload: JSON.stringify({ n: i }),
            status: 'pending',
            // Oldest first: the busy subscription's backlog is older than everything else.
            next_attempt_at: new Date(Date.now() - (name === 'busy' ? 60_000 : 1000) + i),
            claimed_by: null,
            claimed_until: null,
          })
          .execute();
      }
    }
    return { database, subscriptionOf: (deliveryId) => owner.get(deliveryId)! };
  }

  it.skipIf(skip)(
    "takes the least busy subscriptions first and never more than a subscription's room, its claims held counted",
    async () => {
      const { database, subscriptionOf } = await withDeliveries({ busy: 10, quiet: 2, other: 1 });
      // What each worker holds, per subscription id, as its dispatcher counts it.
      const held = { w1: new Map<string, number>(), w2: new Map<string, number>() };
      const names = async (worker: 'w1' | 'w2', limit: number) => {
        const claimed = await claimDueDeliveries(database.db, {
          worker,
          leaseMs: 60_000,
          limit,
          perSubscription: 3,
          held: held[worker],
        });
        for (const { subscriptionId } of claimed) {
          held[worker].set(subscriptionId, (held[worker].get(subscriptionId) ?? 0) + 1);
        }
        return claimed.map((delivery) => subscriptionOf(delivery.id)).sort();
      };

      // Places 1 of each subscription, then places 2: the older backlog does not crowd out the others.
      expect(await names('w1', 5)).toEqual(['busy', 'busy', 'other', 'quiet', 'quiet']);
      // w1 holds 2 of busy's: it has room for one more, and nothing else is due.
      expect(await names('w1', 10)).toEqual(['busy']);
      expect(await names('w1', 10)).toEqual([]);
      // Another process counts only what it holds.
      expect(await names('w2', 10)).toEqual(['busy', 'busy', 'busy']);
      expect(await names('w2', 10)).toEqual([]);
      // Every claimed delivery was claimed once, with its attempt counted.
      const rows = await database.db
        .selectFrom('webhook_deliveries')
        .select(['claimed_by', 'attempts'])
        .where('claimed_by', 'is not', null)
        .execute();
      expect(rows).toHaveLength(9);
      expect(rows.every((row) => row.attempts === 1)).toBe(true);
    },
  );
});
