import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { Receipt, ReceiptBody } from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from './bytes';
import { signReceipt, textDigest } from './receipts/receipt-digest';
import { COLLATERAL_TIMES, DCAP_QVL_COLLATERAL, REAL_QUOTES } from './test-fixtures/real-quotes';

// `parley-tee verify-receipt` as a third party runs it: the built program in a child process, judged by its exit
// status and first line. The valid path (a server's simulator receipt) is run end to end by
// integration/receipts/receipts-e2e.test.ts; here, what must be refused.
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const NOW = new Date(COLLATERAL_TIMES.dcapQvl).toISOString();
let dir: string;

const secret = secp256k1.utils.randomSecretKey();
const agent = {
  agentId: 'agent-1',
  agentName: 'Eliza',
  publicKey: `0x${bytesToHex(secp256k1.getPublicKey(secret, false))}`,
  createdAt: 1,
};

function chain(length: number): Receipt[] {
  const receipts: Receipt[] = [];
  for (let seq = 1; seq <= length; seq += 1) {
    const body: ReceiptBody = {
      v: 1,
      kind: 'reply',
      id: `r${seq}`,
      seq,
      prev: receipts.at(-1)?.hash ?? null,
      channelId: 'channel-1',
      messageId: `m${seq}`,
      time: '2026-11-28T10:00:00.000Z',
      simulator: false,
      agent,
      reply: { content: textDigest(`hello ${seq}`), toolCalls: [], approvals: [], inReplyTo: null },
    };
    receipts.push(signReceipt(body, secret));
  }
  return receipts;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-tee-receipt-'));
  const receipts = chain(3);
  // The real Intel quote does not bind this key: a receipt "attested" with someone else's quote.
  const attestation = { id: 'x', ...agent, attestation: REAL_QUOTES.dcapQvl.toString('base64') };
  const tampered = {
    ...receipts[0]!,
    body: { ...receipts[0]!.body, time: '2030-01-01T00:00:00.000Z' },
  };
  await Promise.all([
    writeFile(
      join(dir, 'borrowed.json'),
      JSON.stringify({ success: true, data: { receipt: receipts[0], attestation } }),
    ),
    writeFile(join(dir, 'tampered.json'), JSON.stringify({ receipt: tampered, attestation })),
    writeFile(join(dir, 'bare.json'), JSON.stringify(receipts[0])),
    writeFile(
      join(dir, 'gap.json'),
      JSON.stringify({
        receipts: [receipts[0], receipts[2]],
        attestations: [attestation],
        nextCursor: null,
      }),
    ),
    writeFile(join(dir, 'reordered.json'), JSON.stringify([receipts[0], receipts[2], receipts[1]])),
    writeFile(join(dir, 'collateral.json'), DCAP_QVL_COLLATERAL),
    writeFile(join(dir, 'not-json.json'), '{receipt'),
  ]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
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

describe('parley-tee verify-receipt (child process)', { timeout: 60_000 }, () => {
  it('1: a key the quote does not bind, even with a genuine Intel quote and its collateral', async () => {
    const result = await run([
      'verify-receipt',
      'borrowed.json',
      '--collateral',
      'collateral.json',
      '--now',
      NOW,
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^verdict: INVALID \(KEY_BINDING: /);
    const json = await run([
      'verify-receipt',
      'borrowed.json',
      '--collateral',
      'collateral.json',
      '--now',
      NOW,
      '--json',
    ]);
    expect(json.code).toBe(1);
    // The quote part itself verified to Intel's root with its collateral.
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: false,
      failure: 'KEY_BINDING',
      checks: { signature: true, quote: { root: 'intel', tcb: { status: 'UpToDate' } } },
    });
  });

  it('1: a changed body (DIGEST), a receipt without a quote (NO_QUOTE), a broken chain (GAP, ORDER)', async () => {
    const [tampered, bare, gap, reordered] = await Promise.all([
      run(['verify-receipt', 'tampered.json', '--now', NOW]),
      run(['verify-receipt', 'bare.json']),
      run(['verify-receipt', '--chain', 'gap.json', '--now', NOW]),
      run(['verify-receipt', '--chain', 'reordered.json']),
    ]);
    expect(tampered).toMatchObject({ code: 1 });
    expect(tampered.stdout).toMatch(/^verdict: INVALID \(DIGEST: /);
    expect(bare.stdout).toMatch(/^verdict: INVALID \(NO_QUOTE: /);
    expect(bare.code).toBe(1);
    expect(gap.code).toBe(1);
    expect(gap.stdout).toMatch(/^verdict: INVALID \(CHAIN GAP: receipt 1 \(id r3/);
    expect(reordered.code).toBe(1);
    expect(reordered.stdout).toMatch(/^verdict: INVALID \(CHAIN ORDER: receipt 1 /);
  });

  it('2: not JSON, a missing file, a page given without --chain, verify options mixed up', async () => {
    const results = await Promise.all([
      run(['verify-receipt', 'not-json.json']),
      run(['verify-receipt', 'missing.json']),
      run(['verify-receipt', '--chain', 'bare.json']),
      run(['verify', 'bare.json', '--chain']),
      run(['verify-receipt']),
    ]);
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
