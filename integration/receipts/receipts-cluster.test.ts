import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createParleyClient } from '@parley/client';
import type { Receipt } from '@parley/core';
import { verifyReceipt, verifyReceiptChain } from '@parley/tee';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Two server processes of one cluster (one PostgreSQL, the same TEE salt) answering in one channel at once: the
// agent's receipts, appended by both, must make one unbroken chain.
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const SCRIPT = fileURLToPath(new URL('./receipt-node.mjs', import.meta.url));
const name = `parley_receipts_cluster_${randomUUID().replace(/-/g, '')}`;
const children: ChildProcess[] = [];

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function startProcess(): Promise<string> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${name}`,
      SALT: 'receipts cluster salt',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const { url } = JSON.parse(line) as { url?: string };
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
}

let urls: string[];

beforeAll(async () => {
  await admin(`CREATE DATABASE ${name}`);
  // One first, so the two do not race on migrations (they may; this keeps the test about receipts).
  urls = [await startProcess()];
  urls.push(await startProcess());
}, 180_000);
afterAll(async () => {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }),
  );
  await admin(`DROP DATABASE IF EXISTS ${name}`);
}, 60_000);

async function allReceipts(url: string, channelId: string): Promise<Receipt[]> {
  const client = createParleyClient({ baseUrl: url });
  const receipts: Receipt[] = [];
  let after: string | undefined;
  do {
    const page = await client.channelReceipts(channelId, { limit: 3, ...(after && { after }) });
    receipts.push(...page.receipts);
    after = page.nextCursor ?? undefined;
  } while (after);
  return receipts;
}

describe('receipts across the processes of a cluster', { timeout: 180_000 }, () => {
  it('replies released together on two processes into one channel make one unbroken chain', async () => {
    const channelId = randomUUID();
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        createParleyClient({ baseUrl: urls[index % 2]! }).sendMessage(channelId, {
          text: `hello number ${index}`,
          entityId: 'user-1',
          mode: 'sync',
        }),
      ),
    );
    const replyIds = replies.map((reply) => reply.replyId!);
    expect(new Set(replyIds).size).toBe(10);
    // Written just after each reply ends, by the process that made it: read until all ten are there.
    let receipts: Receipt[] = [];
    await expect
      .poll(
        async () => {
          receipts = await allReceipts(urls[0]!, channelId);
          return receipts.length;
        },
        { timeout: 60_000, interval: 50 },
      )
      .toBe(10);
    expect(receipts.map((receipt) => receipt.body.messageId).sort()).toEqual([...replyIds].sort());
    expect(verifyReceiptChain(receipts)).toMatchObject({ valid: true, chains: [{ length: 10 }] });
    // The requests went to both processes; the other one reads the same chain.
    expect(await allReceipts(urls[1]!, channelId)).toEqual(receipts);
    const bundle = await createParleyClient({ baseUrl: urls[1]! }).messageReceipt(replyIds[3]!);
    expect(
      verifyReceipt(bundle.receipt, { attestation: bundle.attestation!, allowSimulator: true }),
    ).toMatchObject({ valid: true, simulator: true, hardware: false });
  });
});
