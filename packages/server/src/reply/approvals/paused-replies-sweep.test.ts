import { randomUUID } from 'node:crypto';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyPGliteTemplate, type TestDatabase } from '../../../test/databases';
import { createAgentProfiles } from '../../agents/agent-registry';
import { createLogger } from '../../logger';
import { ApprovalStore } from './approval-store';
import { createDatabase, type Database } from '../../storage/create-database';
import { MessageStore } from '../../storage/message-store';
import { PausedReplies } from './paused-replies';

/** Counts the statements sent to the database, by the table they name first. */
function statementCounter() {
  const seen: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      seen.push(JSON.stringify(node).match(/paused_replies|approval_requests/)?.[0] ?? 'other');
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  return { plugin, seen };
}

describe('the approvals sweep', () => {
  let testDatabase: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    testDatabase = await copyPGliteTemplate();
    database = createDatabase(testDatabase.location);
    await database.migrate();
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.dispose();
  });

  function sweeper() {
    const counter = statementCounter();
    const store = new ApprovalStore(database.db.withPlugin(counter.plugin));
    const paused = new PausedReplies({
      store,
      messages: new MessageStore(database.db),
      agents: createAgentProfiles([]),
      logger: createLogger('silent'),
      leaseMs: 30_000,
      sweepMs: 60_000,
      followPollMs: 250,
      held: () => undefined,
      run: () => undefined,
      continueReply: () => Promise.resolve(),
      stopped: () => false,
    });
    return { paused, store, seen: counter.seen };
  }

  it('costs one statement a round while no reply waits, and goes on expiring once one does', async () => {
    const { paused, store, seen } = sweeper();
    for (let round = 0; round < 5; round += 1) await paused.sweep();
    expect(seen).toHaveLength(5);

    const replyId = randomUUID();
    await store.pause({
      replyId,
      channelId: randomUUID(),
      agentId: randomUUID(),
      inReplyTo: randomUUID(),
      parts: [],
      progress: {},
      expiresAt: new Date(Date.now() - 1000),
      requests: [{ toolCallId: 'call-1', toolName: 'FORGET' }],
    });
    seen.length = 0;
    await paused.sweep();
    // The look, the expiry (which reaches the waiting request) and the claim of what is ready.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toContain('approval_requests');
    const decisions = await store.decisions(replyId);
    expect(decisions.map((decision) => decision.decision)).toEqual(['expired']);
  });
});
