import { randomUUID } from 'node:crypto';
import { DEFAULT_SERVER_ID, type StoredMessage } from '@parley/core';
import { verifyReceipt, verifyReceiptChain } from '@parley/tee';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTeeConfig } from '../config/tee-settings';
import { createDatabase, type Database } from '../storage/create-database';
import { MessageStore } from '../storage/message-store';
import { createDatabaseTeeAgentStore } from '../tee/database-tee-agent-store';
import { createTeeService, type TeeService } from '../tee/tee-service';
import { createCapturingLogger } from '../tee/test-support';
import { ReceiptService } from './receipt-service';

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';
const AGENT = { agentId: '0b0e4c35-3f43-5c5b-9a61-2c3ad0f6c0f1', name: 'Eliza' };
const config = parseTeeConfig({
  TEE_MODE: 'LOCAL',
  WALLET_SECRET_SALT: 'shared salt for receipts',
});

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Two server "processes" on one PostgreSQL: each its own pool, TEE service (same salt, so the same agent key)
 * and receipt service, appending receipts of replies released together into one channel.
 */
describe('receipt chains on a shared PostgreSQL', { timeout: 120_000 }, () => {
  const name = `parley_receipts_${randomUUID().replace(/-/g, '')}`;
  const databases: Database[] = [];
  const tees: TeeService[] = [];
  let processes: { receipts: ReceiptService; store: MessageStore }[];

  async function startProcess() {
    const database = createDatabase({
      kind: 'postgres',
      url: `postgres://postgres@127.0.0.1:5432/${name}`,
    });
    databases.push(database);
    await database.migrate();
    const { logger } = createCapturingLogger();
    const tee = createTeeService({
      config,
      logger,
      store: createDatabaseTeeAgentStore(database.db),
    });
    tees.push(tee);
    await tee.register([AGENT]);
    const receipts = new ReceiptService({
      db: database.db,
      sync: () => database.sync(),
      tee,
      logger,
    });
    const store = new MessageStore(database.db, { sync: () => database.sync() });
    return { receipts, store };
  }

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`);
    processes = await Promise.all([startProcess(), startProcess()]);
  });
  afterAll(async () => {
    await Promise.all(tees.map((tee) => tee.close()));
    await Promise.all(databases.map((database) => database.close()));
    await admin(`DROP DATABASE IF EXISTS ${name}`);
  });

  /** A reply the agent stored in `channelId` (with a question it answers), as `store` wrote it. */
  async function storedReply(
    store: MessageStore,
    channelId: string,
    index: number,
  ): Promise<StoredMessage> {
    const question = await store.insert({
      id: randomUUID(),
      channelId,
      serverId: DEFAULT_SERVER_ID,
      authorId: randomUUID(),
      authorName: 'user',
      content: `question ${index}`,
      sourceType: 'client_chat',
      metadata: {},
      createdAt: new Date(),
    });
    return store.insert({
      id: randomUUID(),
      channelId,
      serverId: DEFAULT_SERVER_ID,
      authorId: AGENT.agentId,
      authorName: AGENT.name,
      content: `answer ${index}`,
      sourceType: 'agent_response',
      rawMessage: {
        text: `answer ${index}`,
        toolCalls: [
          {
            toolCallId: `call-${index}`,
            toolName: 'LOOKUP',
            input: { index },
            output: { ok: index },
          },
        ],
      },
      metadata: {},
      inReplyTo: question.id,
      createdAt: new Date(),
    });
  }

  it('replies released together from two processes make one unbroken chain', async () => {
    const channelId = randomUUID();
    const replies = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        storedReply(processes[index % 2]!.store, channelId, index),
      ),
    );
    const written = await Promise.all(
      replies.map((reply, index) => processes[index % 2]!.receipts.recordReply(reply)),
    );
    expect(written.every((receipt) => receipt !== undefined)).toBe(true);
    expect(new Set(written.map((receipt) => receipt!.body.seq)).size).toBe(16);

    // Read back in pages, from the other process, as a third party would.
    const receipts = [];
    let after: string | undefined;
    do {
      const page = await processes[1]!.receipts.page(channelId, after, 5);
      receipts.push(...page.receipts);
      after = page.nextCursor ?? undefined;
      expect(page.attestations).toHaveLength(1);
    } while (after);
    expect(receipts).toHaveLength(16);
    const chain = verifyReceiptChain(receipts);
    expect(chain).toMatchObject({ valid: true, chains: [{ length: 16, channelId }] });

    // Each receipt states what was stored: the reply's tool call and the question it answers.
    const bundle = await processes[0]!.receipts.forMessage(replies[3]!.id);
    expect(bundle.receipt.body.reply).toMatchObject({
      toolCalls: [{ id: 'call-3', name: 'LOOKUP' }],
      inReplyTo: { messageId: replies[3]!.in_reply_to },
    });
    const checked = verifyReceipt(bundle.receipt, {
      attestation: bundle.attestation!,
      allowSimulator: true,
    });
    expect(checked).toMatchObject({
      valid: true,
      simulator: true,
      hardware: false,
      root: 'simulator',
    });
    // A simulator receipt never verifies under the production policy.
    expect(verifyReceipt(bundle.receipt, { attestation: bundle.attestation! })).toMatchObject({
      valid: false,
      failure: 'UNTRUSTED_ROOT',
    });
  });

  it('the same reply recorded by both processes at once gets one receipt', async () => {
    const channelId = randomUUID();
    const reply = await storedReply(processes[0]!.store, channelId, 0);
    const [a, b] = await Promise.all(processes.map(({ receipts }) => receipts.recordReply(reply)));
    expect(a!.hash).toBe(b!.hash);
    expect((await processes[0]!.receipts.page(channelId, undefined, 10)).receipts).toHaveLength(1);
  });

  it('tombstones from both processes (a message deleted, history cleared) keep the chain verifying', async () => {
    const channelId = randomUUID();
    const replies = [];
    for (let index = 0; index < 4; index += 1) {
      const reply = await storedReply(processes[index % 2]!.store, channelId, index);
      await processes[index % 2]!.receipts.recordReply(reply);
      replies.push(reply);
    }
    await Promise.all([
      processes[0]!.receipts.recordRemoval({
        channelId,
        reason: 'message-deleted',
        messageId: replies[1]!.id,
        removedBy: 'api',
      }),
      processes[1]!.receipts.recordRemoval({
        channelId,
        reason: 'history-cleared',
        removedBy: 'api',
      }),
    ]);
    const { receipts } = await processes[0]!.receipts.page(channelId, undefined, 50);
    expect(receipts.map((receipt) => receipt.body.kind)).toEqual([
      'reply',
      'reply',
      'reply',
      'reply',
      'tombstone',
      'tombstone',
    ]);
    expect(verifyReceiptChain(receipts)).toMatchObject({
      valid: true,
      chains: [{ length: 6, tombstones: 2 }],
    });
    const cleared = receipts.find(
      (receipt) => receipt.body.tombstone?.reason === 'history-cleared',
    )!;
    expect(cleared.body.tombstone).toMatchObject({ count: 4, removedBy: 'api' });
    // Without a tombstone, a receipt taken out of the page shows as a gap.
    expect(verifyReceiptChain(receipts.filter((_, index) => index !== 2))).toMatchObject({
      valid: false,
      failure: 'GAP',
      index: 2,
    });
  });
});

/** The embedded database's single writer: chains serialised in memory, each receipt one INSERT. */
describe('receipt chains on the embedded database (exclusive writer)', { timeout: 120_000 }, () => {
  let database: Database;
  let tee: TeeService;
  let receipts: ReceiptService;
  let store: MessageStore;

  beforeAll(async () => {
    database = createDatabase({ kind: 'pglite', dataDir: 'memory' });
    await database.migrate();
    const { logger } = createCapturingLogger();
    tee = createTeeService({ config, logger, store: createDatabaseTeeAgentStore(database.db) });
    await tee.register([AGENT]);
    receipts = new ReceiptService({
      db: database.db,
      sync: () => database.sync(),
      tee,
      logger,
      exclusive: true,
    });
    store = new MessageStore(database.db, { sync: () => database.sync() });
  });
  afterAll(async () => {
    await tee.close();
    await database.close();
  });

  it('replies released together, one recorded twice, and a tombstone make one unbroken chain', async () => {
    const channelId = randomUUID();
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        store.insert({
          id: randomUUID(),
          channelId,
          serverId: DEFAULT_SERVER_ID,
          authorId: AGENT.agentId,
          authorName: AGENT.name,
          content: `answer ${index}`,
          sourceType: 'agent_response',
          metadata: {},
          createdAt: new Date(),
        }),
      ),
    );
    const written = await Promise.all(
      [...replies, replies[5]!].map((reply) => receipts.recordReply(reply)),
    );
    expect(written[12]!.hash).toBe(written[5]!.hash);
    await receipts.recordRemoval({
      channelId,
      reason: 'message-deleted',
      messageId: replies[0]!.id,
      removedBy: 'api',
    });
    const more = await receipts.recordReply({
      ...replies[0]!,
      id: randomUUID(),
      content: 'after the tombstone',
    });
    expect(more!.body.seq).toBe(14);
    const page = await receipts.page(channelId, undefined, 100);
    expect(page.receipts).toHaveLength(14);
    expect(verifyReceiptChain(page.receipts)).toMatchObject({
      valid: true,
      chains: [{ length: 14, tombstones: 1 }],
    });
  });
});
