import { randomUUID } from 'node:crypto';
import type { Component } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { AgentComponentStore } from './agent-component-store';
import { createDatabase, type Database } from './create-database';

const kinds = await databaseKinds();
const LIMITS = { maxDataBytes: 1024, maxPerAgent: 5 };

function component(agentId: string, fields: Partial<Component> = {}): Component {
  return {
    id: randomUUID(),
    entityId: agentId,
    agentId,
    roomId: agentId,
    worldId: randomUUID(),
    sourceEntityId: agentId,
    type: 'cron_job_index',
    createdAt: Date.now(),
    data: { jobIds: [] },
    ...fields,
  };
}

describe.each(kinds)('agent component store on $name', ({ create, skip }) => {
  let testDatabase: TestDatabase | undefined;
  let database: Database | undefined;
  let store: AgentComponentStore;

  async function open() {
    testDatabase ??= await create();
    database = createDatabase(testDatabase.location);
    await database.migrate();
    store = new AgentComponentStore(database.db, LIMITS, () => database!.sync());
  }

  beforeAll(async () => {
    if (!skip) await open();
  });

  afterAll(async () => {
    await database?.close();
    await testDatabase?.dispose();
  });

  it.skipIf(skip)('creates, reads, updates and deletes an agent’s components', async () => {
    const agentId = randomUUID();
    const index = component(agentId, { createdAt: 1_700_000_000_123 });
    expect(await store.create(agentId, index)).toBe(true);
    expect(await store.get(agentId, agentId, 'cron_job_index')).toEqual(index);
    expect(await store.get(agentId, agentId, 'cron_job:1')).toBeNull();

    await store.update(agentId, { ...index, data: { jobIds: ['a'] } });
    expect((await store.get(agentId, agentId, 'cron_job_index'))?.data).toEqual({ jobIds: ['a'] });

    const job = component(agentId, { type: 'cron_job:a', data: { name: 'nightly' } });
    await store.create(agentId, job);
    expect((await store.list(agentId, agentId)).map((c) => c.type)).toEqual([
      'cron_job_index',
      'cron_job:a',
    ]);

    await store.delete(agentId, job.id);
    expect(await store.get(agentId, agentId, 'cron_job:a')).toBeNull();
    // Unknown ids are no error, as in elizaOS.
    await store.delete(agentId, randomUUID());
    await store.update(agentId, component(agentId));
    expect(await store.list(agentId, agentId)).toHaveLength(1);
  });

  it.skipIf(skip)('narrows by world and source when asked', async () => {
    const agentId = randomUUID();
    const entityId = randomUUID();
    const first = component(agentId, { entityId, type: 'profile' });
    const second = component(agentId, { entityId, type: 'profile', sourceEntityId: entityId });
    await store.create(agentId, first);
    await store.create(agentId, second);
    expect((await store.get(agentId, entityId, 'profile', second.worldId))?.id).toBe(second.id);
    expect((await store.get(agentId, entityId, 'profile', undefined, entityId))?.id).toBe(
      second.id,
    );
    expect(await store.list(agentId, entityId, first.worldId)).toEqual([first]);
    expect(await store.get(agentId, entityId, 'profile', randomUUID())).toBeNull();
    // Ids that are not UUIDs match nothing.
    expect(await store.get(agentId, 'not-a-uuid', 'profile')).toBeNull();
    expect(await store.list(agentId, entityId, 'not-a-uuid')).toEqual([]);
  });

  it.skipIf(skip)('keeps each agent’s components to itself', async () => {
    const [ada, bob] = [randomUUID(), randomUUID()];
    const shared = randomUUID();
    const mine = component(ada, { entityId: shared, type: 'note' });
    await store.create(ada, mine);
    expect(await store.get(bob, shared, 'note')).toBeNull();
    expect(await store.list(bob, shared)).toEqual([]);
    // Another agent can neither change nor delete it, whatever id it passes.
    await store.update(bob, { ...mine, data: { changed: true } });
    await store.delete(bob, mine.id);
    expect(await store.get(ada, shared, 'note')).toEqual(mine);
  });

  it.skipIf(skip)('refuses what it cannot store, with errors that say why', async () => {
    const agentId = randomUUID();
    const taken = component(agentId);
    await store.create(agentId, taken);
    await expect(store.create(agentId, { ...taken })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('exists already'),
    });
    await expect(
      store.create(agentId, component(agentId, { entityId: 'agent' })),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('entityId') });
    await expect(
      store.create(agentId, component(agentId, { worldId: 'world' })),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('worldId') });
    await expect(
      store.create(agentId, component(agentId, { data: [] as unknown as Record<string, unknown> })),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      store.create(agentId, component(agentId, { data: { text: 'a\u0000b' } })),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      store.create(agentId, component(agentId, { data: { text: 'x'.repeat(2000) } })),
    ).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringContaining('the most allowed is 1024'),
    });
    await expect(
      store.update(agentId, { ...taken, data: { text: 'x'.repeat(2000) } }),
    ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it.skipIf(skip)('bounds the components of one agent', async () => {
    const agentId = randomUUID();
    for (let index = 0; index < LIMITS.maxPerAgent; index += 1) {
      await store.create(agentId, component(agentId, { type: `item:${index}` }));
    }
    await expect(store.create(agentId, component(agentId))).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('holds 5 components, the most allowed'),
    });
    // Another agent is not affected; deleting one makes room again.
    await store.create(randomUUID(), component(randomUUID()));
    const [first] = await store.list(agentId, agentId);
    await store.delete(agentId, first!.id);
    await store.create(agentId, component(agentId));
  });

  it.skipIf(skip)('holds the bound when 20 creates are released together', async () => {
    const agentId = randomUUID();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        store.create(agentId, component(agentId, { type: `together:${index}` })),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(
      LIMITS.maxPerAgent,
    );
    expect(await store.list(agentId, agentId)).toHaveLength(LIMITS.maxPerAgent);
  });

  it.skipIf(skip)('keeps components across a restart', async () => {
    const agentId = randomUUID();
    const kept = component(agentId, { type: 'kept', data: { nested: { list: [1, 'two'] } } });
    await store.create(agentId, kept);
    await database!.close();
    await open();
    expect(await store.get(agentId, agentId, 'kept')).toEqual(kept);
  });
});
