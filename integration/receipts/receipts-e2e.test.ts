import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo } from 'node:net';
import { connectSocket, createParleyClient } from '@parley/client';
import type { Receipt, ReceiptBundle, ReceiptPage } from '@parley/core';
import { parseTeeConfig } from '@parley/server';
import { jsonDigest, textDigest, verifyReceipt, verifyReceiptChain } from '@parley/tee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextEvent } from '../client/events';
import { approvalModel, approvalPlugin } from '../support/approval-agent';
import { verifiedEvent } from '../support/verify-webhook';
import { type TestServer, startServer } from '../support/start-server';

// A reply with a tool call, made by a real server in TEE_MODE=LOCAL (the built-in simulator), checked the way a
// third party checks it: the receipt file and `parley-tee verify-receipt` in a child process, offline.
const require = createRequire(import.meta.url);
const CLI = join(dirname(require.resolve('@parley/tee/package.json')), 'dist', 'cli.js');
const SIMULATOR_COMPOSE_HASH = 'b4736d863467d1efab64139292241c38355dbf86a766816f234435478419f8e0';

let running: TestServer;
let dir: string;
const ran: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-receipts-'));
  running = await startServer({
    model: approvalModel(),
    plugins: [approvalPlugin(ran)],
    tee: parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: 'receipts e2e salt' }),
    webhooks: { privateTargets: ['127.0.0.1'], pollMs: 50 },
  });
});
afterAll(async () => {
  await running?.server.stop();
  await rm(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

async function getJson<T>(path: string): Promise<{ status: number; data: T }> {
  const response = await fetch(`${running.url}${path}`);
  const body = (await response.json()) as { data: T };
  return { status: response.status, data: body.data };
}

/** The receipt of a reply (`@parley/client`): written just after the reply ends, so asked for until it is there. */
async function receiptOf(messageId: string): Promise<ReceiptBundle> {
  const client = createParleyClient({ baseUrl: running.url });
  for (;;) {
    try {
      return await client.messageReceipt(messageId);
    } catch (error) {
      expect(error).toMatchObject({ status: 404 });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Every receipt of a channel, two per page (`@parley/client`). */
async function channelReceipts(channelId: string): Promise<Receipt[]> {
  const client = createParleyClient({ baseUrl: running.url });
  const receipts: Receipt[] = [];
  let after: string | undefined;
  do {
    const page = await client.channelReceipts(channelId, { limit: 2, ...(after && { after }) });
    receipts.push(...page.receipts);
    after = page.nextCursor ?? undefined;
  } while (after);
  return receipts;
}

describe('receipts end to end (simulator TEE)', { timeout: 120_000 }, () => {
  const channelId = randomUUID();
  let bundle: ReceiptBundle;
  let replyId: string;

  it('a reply with an approved tool call yields a receipt that states the call, the approval and the question', async () => {
    const client = createParleyClient({ baseUrl: running.url });
    const paused = await client.sendMessage(channelId, {
      text: 'deploy please',
      entityId: 'user-1',
      mode: 'sync',
    });
    const request = paused.awaitingApproval![0]!;
    replyId = request.replyId;
    await client.decideApproval(replyId, { toolCallId: request.toolCallId, approved: true });
    bundle = await receiptOf(replyId);
    expect(ran).toEqual(['prod']);
    const { body } = bundle.receipt;
    expect(body).toMatchObject({
      kind: 'reply',
      seq: 1,
      prev: null,
      channelId,
      messageId: replyId,
      simulator: true,
      reply: {
        toolCalls: [
          { id: request.toolCallId, name: 'DEPLOY', input: jsonDigest({ target: 'prod' }) },
        ],
        approvals: [{ toolCallId: request.toolCallId, decision: 'approved', decidedBy: 'api' }],
        inReplyTo: { content: textDigest('deploy please') },
      },
    });
    const history = await client.channelMessages(channelId);
    const stored = history.find((message) => message.id === replyId)!;
    expect(body.reply!.content).toBe(textDigest(stored.content));
  });

  it('verifies offline with @parley/tee: the key, the simulator quote and the expected app; never as hardware', () => {
    const options = {
      attestation: bundle.attestation!,
      ...(bundle.eventLog && { eventLog: bundle.eventLog }),
      expected: { eventLog: { composeHash: SIMULATOR_COMPOSE_HASH } },
    };
    expect(verifyReceipt(bundle.receipt, { ...options, allowSimulator: true })).toMatchObject({
      valid: true,
      simulator: true,
      hardware: false,
      root: 'simulator',
      app: { composeHash: SIMULATOR_COMPOSE_HASH },
    });
    expect(verifyReceipt(bundle.receipt, options)).toMatchObject({
      valid: false,
      failure: 'UNTRUSTED_ROOT',
    });
  });

  it('parley-tee verify-receipt accepts the file (marked SIMULATOR), and refuses it as hardware or changed', async () => {
    await writeFile(join(dir, 'receipt.json'), JSON.stringify({ success: true, data: bundle }));
    const changed = structuredClone(bundle);
    changed.receipt.body.reply!.toolCalls[0]!.input = jsonDigest({ target: 'staging' });
    await writeFile(join(dir, 'changed.json'), JSON.stringify(changed));
    const [accepted, partial, production, tampered] = await Promise.all([
      cli([
        'verify-receipt',
        'receipt.json',
        '--allow-simulator',
        '--allow-no-collateral',
        '--compose-hash',
        SIMULATOR_COMPOSE_HASH,
      ]),
      cli(['verify-receipt', 'receipt.json', '--allow-simulator']),
      cli(['verify-receipt', 'receipt.json']),
      cli(['verify-receipt', 'changed.json', '--allow-simulator', '--allow-no-collateral']),
    ]);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/^verdict: VALID \(SIMULATOR: /);
    expect(accepted.stdout).toContain('DEPLOY');
    expect(partial.code).toBe(3);
    expect(production.code).toBe(1);
    expect(production.stdout).toMatch(/UNTRUSTED_ROOT/);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/^verdict: INVALID \(DIGEST: /);
  });

  it("the channel's chain verifies after a reply is deleted (tombstone), and fails without the tombstone", async () => {
    const client = createParleyClient({ baseUrl: running.url });
    const second = await client.sendMessage(channelId, {
      text: 'hello',
      entityId: 'user-1',
      mode: 'sync',
    });
    expect(second.replyId).toEqual(expect.any(String));
    await receiptOf(second.replyId!);
    await client.deleteMessage(channelId, replyId);
    const receipts = await channelReceipts(channelId);
    expect(receipts.map((receipt) => receipt.body.kind)).toEqual(['reply', 'reply', 'tombstone']);
    expect(receipts[2]!.body.tombstone).toMatchObject({
      reason: 'message-deleted',
      removed: [{ messageId: replyId, receipt: bundle.receipt.hash }],
    });
    expect(verifyReceiptChain(receipts)).toMatchObject({
      valid: true,
      chains: [{ length: 3, tombstones: 1 }],
    });
    // The deleted reply's receipt stays readable: a tombstone says it was removed, not that it never was.
    expect((await getJson(`/api/messaging/messages/${replyId}/receipt`)).status).toBe(200);

    const { data: page } = await getJson<ReceiptPage>(
      `/api/messaging/channels/${channelId}/receipts?limit=50`,
    );
    await writeFile(join(dir, 'chain.json'), JSON.stringify(page));
    await writeFile(
      join(dir, 'removed.json'),
      JSON.stringify({ ...page, receipts: page.receipts.filter((_, index) => index !== 1) }),
    );
    const [whole, removed] = await Promise.all([
      cli([
        'verify-receipt',
        '--chain',
        'chain.json',
        '--allow-simulator',
        '--allow-no-collateral',
      ]),
      cli([
        'verify-receipt',
        '--chain',
        'removed.json',
        '--allow-simulator',
        '--allow-no-collateral',
      ]),
    ]);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toMatch(/^verdict: VALID \(3 receipts, 1 chains unbroken\)/);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toMatch(/^verdict: INVALID \(CHAIN GAP: receipt 1 /);
  });

  it('clearing the history and deleting the channel keep the chain verifying', async () => {
    const client = createParleyClient({ baseUrl: running.url });
    const third = await client.sendMessage(channelId, {
      text: 'hello again',
      entityId: 'user-1',
      mode: 'sync',
    });
    await receiptOf(third.replyId!);
    const cleared = await fetch(`${running.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'DELETE',
    });
    expect(cleared.status).toBe(200);
    const deleted = await fetch(`${running.url}/api/messaging/channels/${channelId}`, {
      method: 'DELETE',
    });
    expect(deleted.status).toBe(200);
    const receipts = await channelReceipts(channelId);
    expect(receipts.map((receipt) => receipt.body.tombstone?.reason ?? 'reply')).toEqual([
      'reply',
      'reply',
      'message-deleted',
      'reply',
      'history-cleared',
    ]);
    expect(verifyReceiptChain(receipts)).toMatchObject({
      valid: true,
      chains: [{ length: 5, tombstones: 2 }],
    });
  });

  it('bad ids and cursors are 400, unknown ones 404, never 500', async () => {
    const statuses = await Promise.all(
      [
        '/api/messaging/messages/not-a-uuid/receipt',
        `/api/messaging/messages/${randomUUID()}/receipt`,
        `/api/messaging/channels/${channelId}/receipts?after=-1`,
        `/api/messaging/channels/${channelId}/receipts?after=99999999999999999999999`,
        `/api/messaging/channels/${channelId}/receipts?limit=0`,
        `/api/messaging/channels/${channelId}/receipts?bogus=1`,
        '/api/messaging/channels/x/receipts',
      ].map(async (path) => (await fetch(`${running.url}${path}`)).status),
    );
    expect(statuses).toEqual([400, 404, 400, 400, 400, 400, 400]);
  });
});

describe('who decided, as a receipt signs it', { timeout: 120_000 }, () => {
  it('a decision over the socket is signed as socket:<the entity that joined the room>', async () => {
    const client = createParleyClient({ baseUrl: running.url });
    const channelId = randomUUID();
    const socket = connectSocket({ baseUrl: running.url });
    try {
      await nextEvent(socket.onConnectionChange, (state) => state.status === 'connected');
      await socket.joinRoom(channelId, 'reviewer-7');
      const paused = await client.sendMessage(channelId, {
        text: 'deploy now',
        entityId: 'user-1',
        mode: 'sync',
      });
      const request = paused.awaitingApproval![0]!;
      await socket.decideApproval(channelId, request.replyId, request.toolCallId, true);
      const { receipt } = await receiptOf(request.replyId);
      expect(receipt.body.reply!.approvals).toEqual([
        expect.objectContaining({ decision: 'approved', decidedBy: 'socket:reviewer-7' }),
      ]);
    } finally {
      socket.disconnect();
    }
  });
});

describe("the receipt's id in the final events", { timeout: 120_000 }, () => {
  it('sync, the SSE done event, the socket messageComplete and the reply.completed webhook name it', async () => {
    // A real receiver on 127.0.0.1, verifying each delivery with the standardwebhooks library.
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createHttpServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const created = await fetch(`${running.url}/api/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/in`, events: ['reply.completed'] }),
      });
      const { secret } = ((await created.json()) as { data: { secret: string } }).data;

      const client = createParleyClient({ baseUrl: running.url });
      const channelId = randomUUID();
      const socket = connectSocket({ baseUrl: running.url });
      try {
        await nextEvent(socket.onConnectionChange, (state) => state.status === 'connected');
        await socket.joinRoom(channelId, 'user-1');
        const complete = nextEvent<{ receiptId?: string; replyId?: string }>((listener) =>
          socket.on('messageComplete', listener),
        );
        const sync = await client.sendMessage(channelId, {
          text: 'hello',
          entityId: 'user-1',
          mode: 'sync',
        });
        const syncReceipt = await receiptOf(sync.replyId!);
        expect(sync.agentResponse.receiptId).toBe(syncReceipt.receipt.body.id);
        expect((await complete).receiptId).toBe(syncReceipt.receipt.body.id);

        let done: { receiptId?: string } | undefined;
        for await (const event of client.sendMessage(channelId, {
          text: 'hello there',
          entityId: 'user-1',
          mode: 'stream',
        })) {
          if (event.event === 'done') done = event.data;
        }
        expect(done?.receiptId).toEqual(expect.any(String));

        await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
        const events = received.map((request) =>
          verifiedEvent<{ type: string; data: { reply: { id: string }; receiptId?: string } }>(
            secret,
            request,
          ),
        );
        const first = events.find((event) => event.data.reply.id === sync.replyId)!;
        expect(first).toMatchObject({
          type: 'reply.completed',
          data: { receiptId: syncReceipt.receipt.body.id },
        });
        const second = events.find((event) => event.data.reply.id !== sync.replyId)!;
        expect(second.data.receiptId).toBe(done?.receiptId);
        expect((await receiptOf(second.data.reply.id)).receipt.body.id).toBe(done?.receiptId);
      } finally {
        socket.disconnect();
      }
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
