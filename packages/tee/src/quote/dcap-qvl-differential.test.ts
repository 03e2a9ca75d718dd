/**
 * Differential test: every real quote with collateral, and thousands of mutations of them, through both
 * @parley/tee and Phala's @phala/dcap-qvl (pure JavaScript, pinned in devDependencies). The verdicts (valid or
 * not) and TCB statuses must be identical, except for the differences listed in EXPLAINED, each of which is a
 * documented decision (docs/decisions.md, "Where Parley's TDX verifier differs from QVL on purpose").
 */
import * as qvl from '@phala/dcap-qvl';
import { describe, expect, it } from 'vitest';
import { parseTdxQuote } from './parse-tdx-quote';
import { verifyQuote } from './verify-quote';
import { parseDcapQvlCollateral } from '../collateral/parse-collateral';
import { TCB_STATUSES } from '../collateral/tcb-evaluation';
import type { TdxCollateral } from '../collateral/collateral';
import {
  COLLATERAL_TIMES,
  DCAP_QVL_COLLATERAL,
  REAL_QUOTES,
  sprE4Collateral,
} from '../test-fixtures/real-quotes';

const MUTATIONS = Number(process.env.PARLEY_TEE_DIFF_MUTATIONS ?? 2000);

type QvlCollateral = Parameters<typeof qvl.verify>[1];
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function toQvl(quote: Uint8Array, collateral: TdxCollateral): QvlCollateral {
  const chain = parseTdxQuote(quote).signature.pckCertificateChain;
  return {
    pck_crl_issuer_chain: chain.slice(1).join('\n'),
    root_ca_crl: hex(collateral.rootCaCrl),
    pck_crl: hex(collateral.pckCrl),
    tcb_info_issuer_chain: collateral.tcbInfo.issuerChain.join('\n'),
    tcb_info: collateral.tcbInfo.body,
    tcb_info_signature: hex(collateral.tcbInfo.signature),
    qe_identity_issuer_chain: collateral.qeIdentity.issuerChain.join('\n'),
    qe_identity: collateral.qeIdentity.body,
    qe_identity_signature: hex(collateral.qeIdentity.signature),
  };
}

interface Outcome {
  valid: boolean;
  status?: string;
  reason?: string;
}

function parley(quote: Uint8Array, collateral: TdxCollateral, now: number): Outcome {
  // dcap-qvl accepts every status but Revoked and rejects debug TDs; compare like with like.
  const result = verifyQuote(quote, { now, collateral, acceptedTcbStatuses: TCB_STATUSES });
  return result.valid
    ? { valid: true, status: result.tcb!.status }
    : { valid: false, reason: result.failure };
}

function phala(quote: Uint8Array, collateral: QvlCollateral, now: number): Outcome {
  try {
    const report = qvl.verify(Buffer.from(quote), collateral, Math.floor(now / 1000));
    return { valid: true, status: report.status };
  } catch (error) {
    return { valid: false, reason: (error as Error).message };
  }
}

const cases = [
  {
    name: 'dcap-qvl sample',
    quote: REAL_QUOTES.dcapQvl,
    collateral: parseDcapQvlCollateral(DCAP_QVL_COLLATERAL),
    now: COLLATERAL_TIMES.dcapQvl,
  },
  {
    name: 'go-tdx-guest SPR E4',
    quote: REAL_QUOTES.sprE4,
    collateral: sprE4Collateral(),
    now: COLLATERAL_TIMES.sprE4,
  },
];

/**
 * Differences found and explained. Each names what Parley and dcap-qvl say and why they differ on purpose.
 */
interface Where {
  /** The PEM block of the chain the mutated byte is in (0 = PCK leaf, 2 = root copy), or -1. */
  block: number;
  /** The mutated offset relative to the start of the signature data. */
  signatureOffset: number;
  blocks: number;
}
const EXPLAINED: { why: string; matches: (p: Outcome, q: Outcome, where: Where) => boolean }[] = [
  {
    why:
      "The quote's own copy of the root certificate is damaged: Parley checks every certificate the quote " +
      'carries (the last must be the pinned root or be issued by it); dcap-qvl drops the copy and uses its pinned root.',
    matches: (p, q, where) =>
      !p.valid &&
      ['CERTIFICATE_CHAIN', 'UNTRUSTED_ROOT', 'CERTIFICATION_SIZE'].includes(p.reason!) &&
      q.valid &&
      where.block === where.blocks - 1,
  },
  {
    why:
      'A byte between or after the PEM certificates of the chain is changed to something other than ' +
      'whitespace: Parley refuses anything smuggled beside the chain (CERTIFICATION_SIZE); dcap-qvl skips it.',
    matches: (p, q, where) =>
      !p.valid &&
      p.reason === 'CERTIFICATION_SIZE' &&
      q.valid &&
      where.block === -1 &&
      where.signatureOffset > 130,
  },
  {
    why:
      'The certification data type (2 bytes after the attestation key) is changed: Parley requires type 6 ' +
      '(QE report certification data) as Intel specifies; dcap-qvl 0.3.9 reads the data without checking the type.',
    matches: (p, q, where) =>
      !p.valid && p.reason === 'FORMAT' && q.valid && [128, 129].includes(where.signatureOffset),
  },
];

function compare(
  quote: Uint8Array,
  collateral: TdxCollateral,
  qvlCollateral: QvlCollateral,
  now: number,
  where: Where = { block: -1, signatureOffset: -1, blocks: 0 },
) {
  const p = parley(quote, collateral, now);
  const q = phala(quote, qvlCollateral, now);
  const same = p.valid === q.valid && (!p.valid || p.status === q.status);
  const explained = same ? undefined : EXPLAINED.find((entry) => entry.matches(p, q, where))?.why;
  return { p, q, same, explained };
}

/** Which PEM block of the quote's chain (0 = leaf) holds `offset`, or -1. */
function pemBlocks(quote: Uint8Array): [number, number][] {
  const text = Buffer.from(quote).toString('latin1');
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map(
    (match) => [match.index, match.index + match[0].length],
  );
}
function locate(quote: Uint8Array, offset: number): number {
  return pemBlocks(quote).findIndex(([start, end]) => offset >= start && offset < end);
}

// A small seeded generator: the same mutations on every run.
function generator(seed: number) {
  let state = seed >>> 0;
  return (limit: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % limit;
  };
}

describe('@parley/tee and @phala/dcap-qvl agree', () => {
  it.each(cases)('on the real $name quote and its collateral', ({ quote, collateral, now }) => {
    const result = compare(quote, collateral, toQvl(quote, collateral), now);
    expect(result.same, JSON.stringify(result)).toBe(true);
  });

  it(`on ${MUTATIONS} single-byte mutations of the quotes`, { timeout: 1_200_000 }, () => {
    const random = generator(20260101);
    const unexplained: unknown[] = [];
    const tally = { same: 0, explained: 0, bothValid: 0 };
    const reasons = new Map<string, number>();
    for (let index = 0; index < MUTATIONS; index += 1) {
      const { quote, collateral, now } = cases[index % cases.length]!;
      const mutated = Buffer.from(quote);
      const offset = random(mutated.length);
      mutated[offset]! ^= 1 + random(255);
      const where: Where = {
        block: locate(quote, offset),
        signatureOffset: offset - parseTdxQuote(quote).signedBytes.length - 4,
        blocks: pemBlocks(quote).length,
      };
      const result = compare(mutated, collateral, toQvl(quote, collateral), now, where);
      if (result.same) {
        tally.same += 1;
        if (result.p.valid) tally.bothValid += 1;
      } else if (result.explained) {
        tally.explained += 1;
        reasons.set(result.explained, (reasons.get(result.explained) ?? 0) + 1);
      } else
        unexplained.push({
          offset,
          where: locate(quote, offset),
          from: quote[offset],
          to: mutated[offset],
          parley: result.p,
          dcapQvl: result.q,
        });
    }
    expect(unexplained).toEqual([]);
    expect(tally.same + tally.explained).toBe(MUTATIONS);
    // Most mutations must be judged alike; the explained differences stay a small minority.
    expect(tally.explained).toBeLessThan(MUTATIONS / 5);
    expect(reasons.size).toBeLessThanOrEqual(EXPLAINED.length);
  });
});
