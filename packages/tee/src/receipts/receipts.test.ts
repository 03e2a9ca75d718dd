import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { Receipt, ReceiptBody, TeeAgent } from '@parley/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentReportData } from '../attestation/attestation-digest';
import { bytesToHex } from '../bytes';
import { parseDcapQvlCollateral } from '../collateral/parse-collateral';
import { replayEventLog } from '../event-log/replay-event-log';
import { buildTestQuote } from '../test-fixtures/build-test-quote';
import { COLLATERAL_TIMES, DCAP_QVL_COLLATERAL, REAL_QUOTES } from '../test-fixtures/real-quotes';
import { SIMULATOR_AGENTS_RESPONSE } from '../test-fixtures/simulator-agents-response';
import { createTestPki, type TestPki } from '../test-fixtures/test-pki';
import { TEST_PLATFORM } from '../test-fixtures/use-test-pki';
import {
  createReceiptSigner,
  jsonDigest,
  receiptDigest,
  signReceipt,
  textDigest,
} from './receipt-digest';
import { verifyReceipt } from './verify-receipt';
import { verifyReceiptChain } from './verify-receipt-chain';

// An attacker's view: a receipt file, a quote, and a verifier. The quotes here are real TDX quotes signed under a
// private PKI shaped like Intel's (trusted as an extra root, so they verify as `custom`, never as hardware), and
// the real Intel quotes of test/fixtures/tdx for the Intel-root part.

interface Agent {
  secret: Uint8Array;
  binding: { agentId: string; agentName: string; publicKey: string; createdAt: number };
}

function newAgent(agentId: string): Agent {
  const secret = secp256k1.utils.randomSecretKey();
  const publicKey = `0x${bytesToHex(secp256k1.getPublicKey(secret, false))}`;
  return { secret, binding: { agentId, agentName: `agent ${agentId}`, publicKey, createdAt: 1 } };
}

const CHANNEL = '11111111-1111-4111-8111-111111111111';
const events = SIMULATOR_AGENTS_RESPONSE.eventLog!;
const replay = replayEventLog(events);
if (!replay.valid) throw new Error('fixture event log does not replay');
const rtmr3Values = replay.events.filter((event) => event.imr === 3);
const composeHash = events.find((event) => event.event === 'compose-hash')!.event_payload;
const MRTD = 'ab'.repeat(48);

let pki: TestPki;
let alice: Agent;
let bob: Agent;
let aliceRegistration: TeeAgent;
let bobRegistration: TeeAgent;

function quoteFor(agent: Agent, body: Record<string, string> = {}): string {
  return buildTestQuote({
    pckKey: pki.pckKey,
    chain: [pki.pckPem, pki.caPem],
    body: {
      tdAttributes: '0000001000000000',
      mrTd: MRTD,
      rtmr3: rtmr3Values.at(-1)!.registerAfter,
      reportData: bytesToHex(agentReportData(agent.binding)),
      ...body,
    },
  }).toString('base64');
}

const registrationOf = (agent: Agent, quote = quoteFor(agent)): TeeAgent => ({
  id: `registration-${agent.binding.agentId}`,
  ...agent.binding,
  attestation: quote,
});

beforeAll(async () => {
  pki = await createTestPki(TEST_PLATFORM);
  alice = newAgent('alice');
  bob = newAgent('bob');
  aliceRegistration = registrationOf(alice);
  bobRegistration = registrationOf(bob);
});

function replyBody(
  agent: Agent,
  seq: number,
  prev: string | null,
  over: Partial<ReceiptBody> = {},
) {
  return {
    v: 1 as const,
    kind: 'reply' as const,
    id: `receipt-${agent.binding.agentId}-${seq}`,
    seq,
    prev,
    channelId: CHANNEL,
    messageId: `message-${seq}`,
    time: '2026-11-28T10:00:00.000Z',
    simulator: false,
    agent: agent.binding,
    reply: {
      content: textDigest(`reply ${seq}`),
      toolCalls: [
        {
          id: 'call-1',
          name: 'TRANSFER',
          input: jsonDigest({ to: 'carol', amount: 10 }),
          result: jsonDigest({ output: { ok: true } }),
        },
      ],
      approvals: [
        {
          toolCallId: 'call-1',
          decision: 'approved' as const,
          decidedBy: 'operator',
          decidedAt: '2026-11-28T09:59:59.000Z',
        },
      ],
      inReplyTo: { messageId: `question-${seq}`, content: textDigest(`question ${seq}`) },
    },
    ...over,
  };
}

/** A chain of `length` signed reply receipts of `agent`. */
function chainOf(agent: Agent, length: number): Receipt[] {
  const receipts: Receipt[] = [];
  for (let seq = 1; seq <= length; seq += 1) {
    receipts.push(signReceipt(replyBody(agent, seq, receipts.at(-1)?.hash ?? null), agent.secret));
  }
  return receipts;
}

const options = () => ({ extraRoots: [pki.rootPem], attestation: aliceRegistration });

describe('verifyReceipt: a genuine receipt', () => {
  it('verifies signature, key binding and quote, and is not hardware under a private root', () => {
    const [receipt] = chainOf(alice, 1);
    const result = verifyReceipt(receipt, options());
    expect(result).toMatchObject({
      valid: true,
      root: 'custom',
      hardware: false,
      simulator: false,
      fullyVerified: false,
      checks: { signature: true, keyBinding: true, quote: { root: 'custom' } },
    });
  });

  it('checks the expected code: MRTD and the app the event log names (a prefix point of RTMR3)', () => {
    const [receipt] = chainOf(alice, 1);
    const expected = { mrTd: MRTD, eventLog: { composeHash } };
    expect(verifyReceipt(receipt, { ...options(), expected, eventLog: events })).toMatchObject({
      valid: true,
      checks: { measurements: true },
      app: { composeHash },
    });
    // A registration quoted before the last RTMR3 event still verifies: RTMR3 only grows.
    const earlier = registrationOf(
      alice,
      quoteFor(alice, { rtmr3: rtmr3Values.at(-2)!.registerAfter }),
    );
    expect(
      verifyReceipt(receipt, { ...options(), attestation: earlier, expected, eventLog: events }),
    ).toMatchObject({ valid: true });
  });
});

describe("createReceiptSigner (the server's OpenSSL signer)", () => {
  it('signs what signReceipt signs: same digest, a low-S signature verifyReceipt and the chain accept', () => {
    const sign = createReceiptSigner(alice.secret);
    const receipts: Receipt[] = [];
    for (let seq = 1; seq <= 40; seq += 1) {
      receipts.push(sign(replyBody(alice, seq, receipts.at(-1)?.hash ?? null)));
    }
    for (const receipt of receipts) {
      expect(receipt.hash).toBe(signReceipt(receipt.body, alice.secret).hash);
      // verifyReceipt requires low-S: about half of raw OpenSSL signatures are high-S before normalising.
      expect(verifyReceipt(receipt, options())).toMatchObject({ valid: true });
    }
    expect(verifyReceiptChain(receipts)).toMatchObject({ valid: true, chains: [{ length: 40 }] });
    expect(
      verifyReceipt(createReceiptSigner(bob.secret)(receipts[0]!.body), options()),
    ).toMatchObject({
      failure: 'SIGNATURE',
    });
  });
});

describe('verifyReceipt: a receipt changed by one byte fails, with a reason', () => {
  type Edit = (body: ReturnType<typeof replyBody>) => void;
  const flip = (hex: string) => `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`;
  const edits: Record<string, Edit> = {
    content: (body) => (body.reply.content = flip(body.reply.content)),
    'tool name': (body) => (body.reply.toolCalls[0]!.name = 'TRANSFES'),
    'tool input': (body) => (body.reply.toolCalls[0]!.input = flip(body.reply.toolCalls[0]!.input)),
    'tool result': (body) =>
      (body.reply.toolCalls[0]!.result = flip(body.reply.toolCalls[0]!.result)),
    'approval decider': (body) => (body.reply.approvals[0]!.decidedBy = 'operatos'),
    'approval time': (body) => (body.reply.approvals[0]!.decidedAt = '2026-11-28T09:59:59.001Z'),
    'user message': (body) => (body.reply.inReplyTo!.content = flip(body.reply.inReplyTo!.content)),
    time: (body) => (body.time = '2026-11-28T10:00:00.001Z'),
    channel: (body) => (body.channelId = `${CHANNEL.slice(0, -1)}2`),
    'previous hash': (body) => (body.prev = flip(body.prev!)),
    'simulator mark': (body) => (body.simulator = true),
  };

  for (const [name, edit] of Object.entries(edits)) {
    it(`${name}: refused as DIGEST, and as SIGNATURE when the attacker recomputes the hash`, () => {
      const [, second] = chainOf(alice, 2);
      const body = structuredClone(second!.body) as ReturnType<typeof replyBody>;
      edit(body);
      const tampered = { ...second!, body };
      expect(verifyReceipt(tampered, options())).toMatchObject({
        valid: false,
        failure: 'DIGEST',
        checks: { signature: false },
      });
      const rehashed = { ...tampered, hash: receiptDigest(body) };
      expect(verifyReceipt(rehashed, options())).toMatchObject({
        valid: false,
        failure: 'SIGNATURE',
        message: expect.stringContaining('signature') as string,
      });
    });
  }

  it('a signature with one bit changed, or high-S, is refused', () => {
    const [receipt] = chainOf(alice, 1);
    const bytes = Buffer.from(receipt!.signature, 'hex');
    bytes[10]! ^= 1;
    expect(
      verifyReceipt({ ...receipt!, signature: bytes.toString('hex') }, options()),
    ).toMatchObject({
      failure: 'SIGNATURE',
    });
    const signature = secp256k1.Signature.fromBytes(Buffer.from(receipt!.signature, 'hex'));
    const highS = new secp256k1.Signature(signature.r, secp256k1.Point.CURVE().n - signature.s);
    expect(
      verifyReceipt({ ...receipt!, signature: bytesToHex(highS.toBytes('compact')) }, options()),
    ).toMatchObject({ failure: 'SIGNATURE' });
  });

  it('hostile shapes are RECEIPT_FORMAT, never a throw', () => {
    const [receipt] = chainOf(alice, 1);
    for (const input of [
      null,
      'receipt',
      [],
      { ...receipt, extra: 1 },
      { ...receipt, body: { ...receipt!.body, seq: 0 } },
      { ...receipt, signature: 'zz'.repeat(64) },
      { ...receipt, body: { ...receipt!.body, agent: { ...alice.binding, publicKey: '0x02' } } },
    ]) {
      expect(verifyReceipt(input, options())).toMatchObject({
        valid: false,
        failure: 'RECEIPT_FORMAT',
      });
    }
    expect(
      verifyReceipt(receipt, { ...options(), attestation: undefined, quote: 'not a quote!' }),
    ).toMatchObject({ valid: false });
  });
});

describe('verifyReceipt: the key must be the one an attested quote binds', () => {
  it("signed by another agent's key under the first agent's name: SIGNATURE", () => {
    const forged = signReceipt(replyBody(alice, 1, null), bob.secret);
    expect(verifyReceipt(forged, options())).toMatchObject({ failure: 'SIGNATURE' });
  });

  it("another agent's genuine receipt shown with this agent's quote: KEY_BINDING", () => {
    const [receipt] = chainOf(bob, 1);
    expect(verifyReceipt(receipt, options())).toMatchObject({ failure: 'KEY_BINDING' });
    expect(
      verifyReceipt(receipt, { extraRoots: [pki.rootPem], quote: aliceRegistration.attestation }),
    ).toMatchObject({
      failure: 'KEY_BINDING',
      checks: { quote: { root: 'custom' }, keyBinding: false },
    });
    expect(verifyReceipt(receipt, { ...options(), attestation: bobRegistration })).toMatchObject({
      valid: true,
    });
  });

  it('a key no quote binds (a valid self-signed receipt): KEY_BINDING, and NO_QUOTE without a quote', () => {
    const mallory = newAgent('alice');
    const [receipt] = chainOf(mallory, 1);
    expect(
      verifyReceipt(receipt, { extraRoots: [pki.rootPem], quote: aliceRegistration.attestation }),
    ).toMatchObject({ failure: 'KEY_BINDING' });
    expect(verifyReceipt(receipt, { extraRoots: [pki.rootPem] })).toMatchObject({
      failure: 'NO_QUOTE',
      checks: { signature: true },
    });
  });

  it('a quote from another app (other MRTD, other compose hash): MEASUREMENT / EVENT_LOG', () => {
    const [receipt] = chainOf(alice, 1);
    expect(
      verifyReceipt(receipt, { ...options(), expected: { mrTd: 'cd'.repeat(48) } }),
    ).toMatchObject({ failure: 'MEASUREMENT' });
    expect(
      verifyReceipt(receipt, {
        ...options(),
        eventLog: events,
        expected: { eventLog: { composeHash: 'ef'.repeat(32) } },
      }),
    ).toMatchObject({ failure: 'EVENT_LOG' });
    // An RTMR3 no prefix of the log reaches: another app's runtime.
    const otherApp = registrationOf(alice, quoteFor(alice, { rtmr3: '12'.repeat(48) }));
    expect(
      verifyReceipt(receipt, {
        ...options(),
        attestation: otherApp,
        eventLog: events,
        expected: { eventLog: { composeHash } },
      }),
    ).toMatchObject({ failure: 'EVENT_LOG' });
  });

  it('a quote under an untrusted root (a private PKI not passed): UNTRUSTED_ROOT', () => {
    const [receipt] = chainOf(alice, 1);
    expect(verifyReceipt(receipt, { attestation: aliceRegistration })).toMatchObject({
      failure: 'UNTRUSTED_ROOT',
    });
  });

  it('a receipt marked simulator whose quote chains to another root: SIMULATOR_MARK', () => {
    const receipt = signReceipt(replyBody(alice, 1, null, { simulator: true }), alice.secret);
    expect(verifyReceipt(receipt, options())).toMatchObject({ failure: 'SIMULATOR_MARK' });
  });
});

describe("verifyReceipt with Intel's real quotes (test/fixtures/tdx)", () => {
  const collateral = parseDcapQvlCollateral(DCAP_QVL_COLLATERAL);
  const now = COLLATERAL_TIMES.dcapQvl;

  it("the quote part verifies to Intel's root with collateral (UpToDate); the key is not what it binds", () => {
    const [receipt] = chainOf(alice, 1);
    const result = verifyReceipt(receipt, { quote: REAL_QUOTES.dcapQvl, collateral, now });
    expect(result).toMatchObject({
      valid: false,
      failure: 'KEY_BINDING',
      checks: {
        signature: true,
        keyBinding: false,
        quote: { root: 'intel', tcb: { status: 'UpToDate' } },
      },
    });
  });

  it('without collateral the quote is genuine but unchecked for TCB and revocation', () => {
    const [receipt] = chainOf(alice, 1);
    const result = verifyReceipt(receipt, { quote: REAL_QUOTES.dcapQvl, now });
    expect(result).toMatchObject({ failure: 'KEY_BINDING', checks: { quote: { root: 'intel' } } });
    expect(result.checks.quote?.tcb).toBeUndefined();
  });

  it('a real quote with one byte changed fails as a quote, before any binding', () => {
    const [receipt] = chainOf(alice, 1);
    const tampered = Buffer.from(REAL_QUOTES.dcapQvl);
    tampered[200]! ^= 1;
    expect(verifyReceipt(receipt, { quote: tampered, collateral, now })).toMatchObject({
      failure: 'QUOTE_SIGNATURE',
      checks: { signature: true },
    });
  });
});

describe('verifyReceiptChain', () => {
  it('accepts chains of two agents interleaved in one channel, with their heads', () => {
    const a = chainOf(alice, 3);
    const b = chainOf(bob, 2);
    const result = verifyReceiptChain([a[0], b[0], a[1], a[2], b[1]]);
    expect(result).toMatchObject({ valid: true });
    if (result.valid) {
      expect(result.chains).toEqual([
        { agentId: 'alice', channelId: CHANNEL, length: 3, head: a[2]!.hash, tombstones: 0 },
        { agentId: 'bob', channelId: CHANNEL, length: 2, head: b[1]!.hash, tombstones: 0 },
      ]);
    }
  });

  it('a removed receipt fails as GAP at the entry after it', () => {
    const chain = chainOf(alice, 4);
    expect(verifyReceiptChain([chain[0], chain[1], chain[3]])).toMatchObject({
      valid: false,
      failure: 'GAP',
      index: 2,
      receiptId: chain[3]!.body.id,
      message: expect.stringContaining('receipts 3 to 3 of its chain are missing') as string,
    });
    expect(verifyReceiptChain(chain.slice(1))).toMatchObject({ failure: 'START', index: 0 });
  });

  it('a duplicated receipt fails as DUPLICATE, naming both places', () => {
    const chain = chainOf(alice, 3);
    expect(verifyReceiptChain([chain[0], chain[1], chain[1], chain[2]])).toMatchObject({
      failure: 'DUPLICATE',
      index: 2,
      message: expect.stringContaining('repeats receipt 1') as string,
    });
  });

  it('reordered receipts fail as ORDER, naming where', () => {
    const chain = chainOf(alice, 4);
    expect(verifyReceiptChain([chain[0], chain[2], chain[1], chain[3]])).toMatchObject({
      failure: 'ORDER',
      index: 1,
    });
    expect(verifyReceiptChain([chain[1], chain[0]])).toMatchObject({ failure: 'ORDER', index: 0 });
  });

  it('a receipt re-signed with the right seq but another prev fails as PREV', () => {
    const chain = chainOf(alice, 3);
    const forged = signReceipt(replyBody(alice, 3, 'ab'.repeat(32)), alice.secret);
    expect(verifyReceiptChain([chain[0], chain[1], forged])).toMatchObject({
      failure: 'PREV',
      index: 2,
    });
  });

  it('an entry with its body changed fails as DIGEST at its index', () => {
    const chain = chainOf(alice, 3);
    const changed = { ...chain[1]!, body: { ...chain[1]!.body, time: '2030-01-01T00:00:00.000Z' } };
    expect(verifyReceiptChain([chain[0], changed, chain[2]])).toMatchObject({
      failure: 'DIGEST',
      index: 1,
    });
  });

  it('a tombstone keeps the chain and must name a receipt earlier in it', () => {
    const chain = chainOf(alice, 2);
    const tombstoneBody = (removed: string): ReceiptBody => ({
      v: 1,
      kind: 'tombstone',
      id: 'tombstone-1',
      seq: 3,
      prev: chain[1]!.hash,
      channelId: CHANNEL,
      messageId: 'message-1',
      time: '2026-11-28T11:00:00.000Z',
      simulator: false,
      agent: alice.binding,
      tombstone: {
        reason: 'message-deleted',
        removedBy: 'operator',
        removed: [{ messageId: 'message-1', receipt: removed }],
        count: 1,
      },
    });
    const tombstone = signReceipt(tombstoneBody(chain[0]!.hash), alice.secret);
    expect(verifyReceiptChain([...chain, tombstone])).toMatchObject({
      valid: true,
      chains: [{ length: 3, tombstones: 1, head: tombstone.hash }],
    });
    const lying = signReceipt(tombstoneBody('cd'.repeat(32)), alice.secret);
    expect(verifyReceiptChain([...chain, lying])).toMatchObject({ failure: 'TOMBSTONE', index: 2 });
  });

  it('hostile entries are RECEIPT_FORMAT with their index, never a throw', () => {
    const chain = chainOf(alice, 1);
    expect(verifyReceiptChain([chain[0], { body: {} }])).toMatchObject({
      failure: 'RECEIPT_FORMAT',
      index: 1,
    });
  });
});
