import { randomUUID } from 'node:crypto';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../../test/databases';
import { createDatabase, type Database } from '../../storage/create-database';
import { ApprovalStore, type PauseRecord } from './approval-store';

/** Counts the statements sent to the database. */
function statementCounter() {
  const seen: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      seen.push(node.kind);
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  return { plugin, seen };
}

/**
 * What one paused-and-approved reply costs the approvals store (issue 42): one statement to pause, one to
 * take the decision and claim the reply it completes, with its decisions; the same guarantees as the
 * statements they replaced.
 */
describe.each(await databaseKinds())('the approvals store on $name', (kind) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let store: ApprovalStore;
  const counter = statementCounter();

  beforeAll(async () => {
    if (kind.skip) return;
    testDatabase = await kind.create();
    database = createDatabase(testDatabase.location);
    await database.migrate();
    store = new ApprovalStore(database.db.withPlugin(counter.plugin));
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.dispose();
  });

  const pauseOf = (replyId: string, channelId: string, ids: string[]): PauseRecord => ({
    replyId,
    channelId,
    agentId: randomUUID(),
    inReplyTo: randomUUID(),
    parts: [{ type: 'text-delta', text: 'a' }],
    progress: { step: 1 },
    expiresAt: new Date(Date.now() + 60_000),
    requests: ids.map((toolCallId) => ({ toolCallId, toolName: 'ECHO' })),
    traceContext: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  });

  it.skipIf(kind.skip)(
    'pauses in one statement; decides and claims the reply the decision completes in one',
    async () => {
      const replyId = randomUUID();
      const channelId = randomUUID();
      const claim = { claimLeaseMs: 30_000 };
      counter.seen.length = 0;
      await store.pause(pauseOf(replyId, channelId, ['call-1', 'call-2']));
      expect(counter.seen).toHaveLength(1);
      const paused = await store.get(replyId);
      expect(paused).toMatchObject({
        status: 'waiting',
        channelId,
        parts: [{ type: 'text-delta', text: 'a' }],
        progress: { step: 1 },
        traceContext: { traceparent: expect.any(String) },
      });

      counter.seen.length = 0;
      // Another request still waits: taken, not claimed.
      expect(
        await store.decide(replyId, 'call-1', 'approved', undefined, 'user:a', {
          channelId,
          ...claim,
        }),
      ).toEqual({ channelId });
      expect(counter.seen).toHaveLength(1);
      expect((await store.get(replyId))?.status).toBe('waiting');
      // Taken once; a channel that is not the reply's takes nothing.
      expect(
        await store.decide(replyId, 'call-1', 'denied', undefined, 'x', claim),
      ).toBeUndefined();
      expect(
        await store.decide(replyId, 'call-2', 'denied', 'no', 'x', {
          channelId: randomUUID(),
          ...claim,
        }),
      ).toBeUndefined();
      expect(await store.claimReady(30_000, 16, replyId)).toEqual([]);

      counter.seen.length = 0;
      const taken = await store.decide(replyId, 'call-2', 'denied', 'no', 'x', claim);
      expect(counter.seen).toHaveLength(1);
      expect(taken).toMatchObject({
        channelId,
        claimed: { replyId, status: 'running', channelId },
      });
      const byId = (list: { toolCallId: string }[]) =>
        [...list].sort((a, b) => a.toolCallId.localeCompare(b.toolCallId));
      const expected = [
        { toolCallId: 'call-1', toolName: 'ECHO', decision: 'approved', reason: null },
        { toolCallId: 'call-2', toolName: 'ECHO', decision: 'denied', reason: 'no' },
      ];
      expect(byId(taken!.claimed!.decisions)).toEqual(expected);
      expect(byId(await store.decisions(replyId))).toEqual(expected);
      // Claimed by one caller only.
      expect(await store.claimReady(30_000, 16, replyId)).toEqual([]);
      expect((await store.get(replyId))?.status).toBe('running');
    },
  );

  it.skipIf(kind.skip)(
    'a decision without a lease leaves the claim to claimReady, which reads the decisions with it',
    async () => {
      const replyId = randomUUID();
      const channelId = randomUUID();
      await store.pause(pauseOf(replyId, channelId, ['call-1']));
      expect(await store.decide(replyId, 'call-1', 'approved', 'ok')).toEqual({ channelId });
      expect((await store.get(replyId))?.status).toBe('waiting');
      counter.seen.length = 0;
      const [claimed] = await store.claimReady(30_000, 16, replyId);
      expect(counter.seen).toHaveLength(1);
      expect(claimed?.decisions).toEqual([
        { toolCallId: 'call-1', toolName: 'ECHO', decision: 'approved', reason: 'ok' },
      ]);
    },
  );

  it.skipIf(kind.skip)(
    'decisions of one reply taken at once: it is claimed once, by one of them or by claimReady after',
    async () => {
      for (let round = 0; round < 10; round += 1) {
        const replyId = randomUUID();
        const ids = ['call-1', 'call-2', 'call-3'];
        await store.pause(pauseOf(replyId, randomUUID(), ids));
        const taken = await Promise.all(
          ids.map((id) =>
            store.decide(replyId, id, 'approved', undefined, 'x', { claimLeaseMs: 30_000 }),
          ),
        );
        expect(taken.every((each) => each !== undefined)).toBe(true);
        const claims = taken.filter((each) => each?.claimed).length;
        expect(claims).toBeLessThanOrEqual(1);
        const after = await store.claimReady(30_000, 16, replyId);
        expect(claims + after.length).toBe(1);
        const decisions =
          taken.find((each) => each?.claimed)?.claimed?.decisions ?? after[0]!.decisions;
        expect(decisions.map((each) => each.decision)).toEqual([
          'approved',
          'approved',
          'approved',
        ]);
      }
    },
  );

  it.skipIf(kind.skip)(
    'a reply that pauses again replaces its requests: earlier ones gone, a reused id undecided again',
    async () => {
      const replyId = randomUUID();
      const channelId = randomUUID();
      await store.pause(pauseOf(replyId, channelId, ['call-1', 'call-2']));
      expect(await store.decide(replyId, 'call-1', 'approved', undefined)).toEqual({ channelId });
      expect(await store.decide(replyId, 'call-2', 'approved', undefined)).toEqual({ channelId });
      expect(await store.claimReady(30_000, 16, replyId)).toHaveLength(1);

      await store.pause({ ...pauseOf(replyId, channelId, ['call-2', 'call-3']), parts: [] });
      expect(await store.get(replyId)).toMatchObject({ status: 'waiting', parts: [] });
      const decisions = await store.decisions(replyId);
      expect(decisions.map((each) => each.toolCallId).sort()).toEqual(['call-2', 'call-3']);
      // Undecided (read as expired by a continuation), and decidable again.
      expect(decisions.every((each) => each.decision === 'expired')).toBe(true);
      expect(await store.requestState(replyId, 'call-2')).toMatchObject({ decided: false });
      expect(await store.requestState(replyId, 'call-1')).toBeUndefined();
      expect(await store.decide(replyId, 'call-2', 'denied', undefined)).toEqual({ channelId });
    },
  );
});
