import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { createAgentProfiles } from '../agents/agent-registry';
import { silentBroadcaster } from '../reply/delivery/room-broadcaster';
import { createLogger } from '../logger';
import { MessagingService } from '../messaging/messaging-service';
import { createElizaModel } from '../models';
import { createDatabase, type Database } from '../storage/create-database';
import { MessageStore } from '../storage/message-store';
import { ScheduledMessageDispatcher } from './scheduled-message-dispatcher';
import { ScheduledMessageStore } from './scheduled-message-store';

const kinds = await databaseKinds();
const logger = createLogger('silent');

/** One server process's worth of scheduling, over a shared database location. */
function processOn(database: Database, clock: { now: Date }, characters = [{ name: 'Eliza' }]) {
  const agents = createAgentProfiles(characters);
  const store = new MessageStore(database.db, { recentCache: 20 });
  const messaging = new MessagingService({
    store,
    agents,
    model: createElizaModel(),
    logger,
    broadcaster: silentBroadcaster,
  });
  const dispatcher = new ScheduledMessageDispatcher({
    store: new ScheduledMessageStore(database.db),
    messaging,
    agents,
    logger,
    now: () => clock.now,
  });
  return { agents, store, messaging, dispatcher, agent: agents.defaultAgent };
}

describe.each(kinds)('scheduled messages on $name', ({ create, skip, name }) => {
  let testDatabase: TestDatabase;
  let database: Database;
  const clock = { now: new Date('2030-01-01T00:00:00Z') };
  const later = (ms: number) => new Date(clock.now.getTime() + ms);

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

  it.skipIf(skip)('refuses a sendAt that is not a date or not in the future', async () => {
    const { dispatcher, agent } = processOn(database, clock);
    const channelId = randomUUID();
    await expect(
      dispatcher.schedule(agent, { channelId, text: 'x', sendAt: clock.now }),
    ).rejects.toThrow('sendAt must be in the future');
    await expect(
      dispatcher.schedule(agent, { channelId, text: 'x', sendAt: new Date('nope') }),
    ).rejects.toThrow('sendAt must be a valid date');
    await expect(
      dispatcher.schedule(agent, { channelId: 'not-a-uuid', text: 'x', sendAt: later(1000) }),
    ).rejects.toThrow(/channelId/);
  });

  it.skipIf(skip)('posts a message once, when it is due and not before', async () => {
    const { dispatcher, agent, store } = processOn(database, clock);
    const channelId = randomUUID();
    const scheduled = await dispatcher.schedule(agent, {
      channelId,
      text: 'Stand-up in 5 minutes',
      sendAt: later(60_000),
    });
    expect(await dispatcher.dispatchDue()).toBe(0);
    clock.now = later(60_000);
    expect(await dispatcher.dispatchDue()).toBe(1);
    expect(await dispatcher.dispatchDue()).toBe(0);
    const messages = await store.list(channelId, { limit: 10 });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      id: scheduled.id,
      content: 'Stand-up in 5 minutes',
      author_id: agent.agentId,
      source_type: 'scheduled',
    });
  });

  it.skipIf(skip)('posts after a restart what was scheduled before it', async () => {
    const channelId = randomUUID();
    const before = processOn(database, clock);
    await before.dispatcher.schedule(before.agent, {
      channelId,
      text: 'survives',
      sendAt: later(5000),
    });
    await database.close();
    database = createDatabase(testDatabase.location);
    await database.migrate();
    clock.now = later(5000);
    const after = processOn(database, clock);
    expect(await after.dispatcher.dispatchDue()).toBe(1);
    expect((await after.store.list(channelId, { limit: 5 })).map((m) => m.content)).toEqual([
      'survives',
    ]);
  });

  it.skipIf(skip)(
    'does not post twice when a process died between posting and marking sent',
    async () => {
      const { dispatcher, agent, messaging, store } = processOn(database, clock);
      const channelId = randomUUID();
      const scheduled = await dispatcher.schedule(agent, {
        channelId,
        text: 'once',
        sendAt: later(1000),
      });
      // What the dead process managed to do: the post, not the bookkeeping.
      await messaging.postAgentMessage(agent, { channelId, text: 'once' }, { id: scheduled.id });
      clock.now = later(1000);
      expect(await dispatcher.dispatchDue()).toBe(1);
      expect(await store.list(channelId, { limit: 5 })).toHaveLength(1);
      expect(await dispatcher.dispatchDue()).toBe(0);
    },
  );

  it.skipIf(skip)('marks a message of an agent that is no longer loaded as failed', async () => {
    const channelId = randomUUID();
    const gone = processOn(database, clock, [{ name: 'Gone' }]);
    await gone.dispatcher.schedule(gone.agent, { channelId, text: 'orphan', sendAt: later(1000) });
    clock.now = later(1000);
    const current = processOn(database, clock);
    expect(await current.dispatcher.dispatchDue()).toBe(0);
    expect(await current.store.list(channelId, { limit: 5 })).toEqual([]);
    const row = await database.db
      .selectFrom('scheduled_messages')
      .select(['status', 'last_error'])
      .where('channel_id', '=', channelId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      status: 'failed',
      last_error: `agent ${gone.agent.agentId} is not loaded`,
    });
  });

  it.skipIf(skip || name !== 'postgres')(
    'posts each message once when several processes share one PostgreSQL',
    async () => {
      const channelId = randomUUID();
      const second = createDatabase(testDatabase.location);
      try {
        const a = processOn(database, clock);
        const b = processOn(second, clock);
        for (let i = 0; i < 40; i++) {
          await a.dispatcher.schedule(a.agent, {
            channelId,
            text: `m${i}`,
            sendAt: later(1000 + i),
          });
        }
        clock.now = later(5000);
        let postedA = 0;
        let postedB = 0;
        for (let round = 0; round < 10; round++) {
          const [fromA, fromB] = await Promise.all([
            a.dispatcher.dispatchDue(),
            b.dispatcher.dispatchDue(),
          ]);
          postedA += fromA;
          postedB += fromB;
        }
        expect(postedA + postedB).toBe(40);
        const messages = await a.store.list(channelId, { limit: 100 });
        expect(messages).toHaveLength(40);
        expect(new Set(messages.map((m) => m.content)).size).toBe(40);
      } finally {
        await second.close();
      }
    },
  );

  it.skipIf(skip)(
    'keeps its default poll interval when the option is passed as undefined',
    async () => {
      const { agents, messaging } = processOn(database, clock);
      const store = new ScheduledMessageStore(database.db);
      let claims = 0;
      const claimDue = store.claimDue.bind(store);
      store.claimDue = (...args) => {
        claims += 1;
        return claimDue(...args);
      };
      const dispatcher = new ScheduledMessageDispatcher({
        store,
        messaging,
        agents,
        logger,
        pollIntervalMs: undefined,
      });
      dispatcher.start();
      await new Promise((resolve) => setTimeout(resolve, 600));
      await dispatcher.stop();
      // 250 ms polls make about 3 claims in 600 ms; the bug this guards against made hundreds.
      expect(claims).toBeGreaterThanOrEqual(1);
      expect(claims).toBeLessThanOrEqual(4);
    },
  );

  it.skipIf(skip)('posts on its own timer once started', async () => {
    const realClock = processOn(database, { now: new Date() });
    const agents = realClock.agents;
    const dispatcher = new ScheduledMessageDispatcher({
      store: new ScheduledMessageStore(database.db),
      messaging: realClock.messaging,
      agents,
      logger,
      pollIntervalMs: 20,
    });
    const channelId = randomUUID();
    await dispatcher.schedule(realClock.agent, {
      channelId,
      text: 'on time',
      sendAt: new Date(Date.now() + 150),
    });
    dispatcher.start();
    try {
      await expect
        .poll(async () => (await realClock.store.list(channelId, { limit: 5 })).length, {
          timeout: 5000,
        })
        .toBe(1);
    } finally {
      await dispatcher.stop();
    }
  });
});
