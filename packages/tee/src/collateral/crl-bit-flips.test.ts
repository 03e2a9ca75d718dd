import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseTdxQuote } from '../quote/parse-tdx-quote';
import { verifyQuote } from '../quote/verify-quote';
import { COLLATERAL_TIMES, DCAP_QVL_COLLATERAL, REAL_QUOTES } from '../test-fixtures/real-quotes';
import { sprE4Collateral } from '../test-fixtures/real-quotes';
import { checkRevocation } from './check-revocation';
import { failureOf } from './collateral-error';
import { parseDcapQvlCollateral } from './parse-collateral';
import { parseCrl } from './parse-crl';

// An untrusted PCCS chooses the CRL bytes. Only the TBSCertList is signed; the outer SEQUENCE header, the outer
// signatureAlgorithm and the signature BIT STRING header are not. Read loosely, 89 of the 21,304 single-bit
// flips of Intel's real PCK CRL were accepted (found by flipping every bit through verifyQuote): a CRL that is
// not the one Intel signed must not count as it.
const collateral = parseDcapQvlCollateral(DCAP_QVL_COLLATERAL);
const now = new Date(COLLATERAL_TIMES.dcapQvl);
const chain = parseTdxQuote(REAL_QUOTES.dcapQvl).signature.pckCertificateChain.map(
  (pem) => new X509Certificate(pem),
);
const root = chain.at(-1)!;

/** The bits (byte, bits) of that CRL whose flip verifyQuote accepted before the strict parse. */
const ACCEPTED_BEFORE: [number, number[]][] = [
  [0, [0, 5, 6, 7]], // the outer SEQUENCE tag
  [3, [0, 1, 5, 6]], // the outer length's last byte
  [2576, [0, 1, 2, 5, 6, 7]], // the outer signatureAlgorithm: SEQUENCE tag, length, OID tag and length, OID
  [2577, [1, 3]],
  [2578, [0, 1, 2, 3, 4, 6, 7]],
  ...[2580, 2581, 2582, 2583, 2584, 2585, 2586].map((byte): [number, number[]] => [
    byte,
    [0, 1, 2, 3, 4, 5, 6, 7],
  ]),
  [2587, [0, 1, 2, 3, 4, 5, 6]],
  [2590, [0, 1, 2]], // the signature BIT STRING's unused-bits count
];

function flipped(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = new Uint8Array(bytes);
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

/** What the revocation check (as verifyQuote runs it) says of a PCK CRL and a root CA CRL. */
function outcome(pckCrl: Uint8Array, rootCaCrl: Uint8Array): string {
  try {
    checkRevocation({ pckChain: chain.slice(0, -1), root, signers: [], pckCrl, rootCaCrl, now });
    return 'accepted';
  } catch (error) {
    return failureOf(error) ?? `threw ${(error as Error).name}`;
  }
}

// PARLEY_TEE_FULL_SWEEP=1 flips every bit of both CRLs (200 s on a shared 2-core machine: asn1js takes
// milliseconds per CRL). The default flips every bit outside the signed TBSCertList (outer header,
// signatureAlgorithm, signature: where the 89 were) and every 7th bit inside it, the same bits on every run.
const FULL = process.env.PARLEY_TEE_FULL_SWEEP === '1';

/** The bits to flip: all, or every unsigned bit and every 7th signed one. */
function bitsOf(crl: Uint8Array): number[] {
  const header = crl[1]! < 0x80 ? 2 : 2 + (crl[1]! & 0x7f);
  const signed = [header * 8, (header + parseCrl(crl, 'CRL').signedBytes.length) * 8];
  return Array.from({ length: crl.length * 8 }, (_, bit) => bit).filter(
    (bit) => FULL || bit < signed[0]! || bit >= signed[1]! || bit % 7 === 0,
  );
}

/** Flips the bits of `crl` one at a time: what the check says of each, and any accepted that reads otherwise. */
function sweep(crl: Uint8Array, check: (flip: Uint8Array) => string) {
  const genuine = parseCrl(crl, 'CRL');
  const outcomes = new Map<string, number>();
  const differentButAccepted: number[] = [];
  for (const bit of bitsOf(crl)) {
    const flip = flipped(crl, bit);
    const result = check(flip);
    outcomes.set(result, (outcomes.get(result) ?? 0) + 1);
    if (result === 'accepted') {
      try {
        expect(parseCrl(flip, 'CRL')).toEqual(genuine);
      } catch {
        differentButAccepted.push(bit);
      }
    }
  }
  return { outcomes, differentButAccepted };
}

describe('CRLs are read as strict DER, every unsigned byte pinned', () => {
  it('reads every real CRL of the fixtures', () => {
    const spr = sprE4Collateral();
    for (const crl of [collateral.pckCrl, collateral.rootCaCrl, spr.pckCrl, spr.rootCaCrl]) {
      expect(parseCrl(crl, 'CRL').nextUpdate).toBeInstanceOf(Date);
    }
  });

  it('refuses, through verifyQuote, each of the 89 flips that were accepted before', () => {
    const bits = ACCEPTED_BEFORE.flatMap(([byte, list]) => list.map((bit) => byte * 8 + bit));
    expect(bits).toHaveLength(89);
    for (const bit of bits) {
      const pckCrl = flipped(collateral.pckCrl, bit);
      const result = verifyQuote(REAL_QUOTES.dcapQvl, {
        now,
        collateral: { ...collateral, pckCrl },
      });
      expect(result, `bit ${bit}`).toMatchObject({ valid: false, failure: 'COLLATERAL_FORMAT' });
    }
  });

  it(
    `refuses ${FULL ? 'every one of the 21,304' : 'the unsigned and every 7th signed'} single-bit flips of the real PCK CRL`,
    { timeout: 900_000 },
    () => {
      const { outcomes, differentButAccepted } = sweep(collateral.pckCrl, (flip) =>
        outcome(flip, collateral.rootCaCrl),
      );
      expect(differentButAccepted).toEqual([]);
      // An accepted flip, even one read identically, is a byte the reader ignores: none is accepted.
      expect(outcomes.get('accepted') ?? 0).toBe(0);
      expect([...outcomes.keys()].filter((key) => key.startsWith('threw'))).toEqual([]);
      const flips = [...outcomes.values()].reduce((sum, count) => sum + count);
      expect(flips).toBe(FULL ? 21_304 : bitsOf(collateral.pckCrl).length);
      expect(flips).toBeGreaterThan(3_000);
    },
  );

  it(
    `refuses ${FULL ? 'every one of the 2,336' : 'the unsigned and every 7th signed'} single-bit flips of the real root CA CRL`,
    { timeout: 900_000 },
    () => {
      const { outcomes, differentButAccepted } = sweep(collateral.rootCaCrl, (flip) =>
        outcome(collateral.pckCrl, flip),
      );
      expect(differentButAccepted).toEqual([]);
      expect(outcomes.get('accepted') ?? 0).toBe(0);
    },
  );

  it('refuses re-encodings of a genuine CRL: long-form and indefinite lengths, trailing bytes, another outer algorithm', () => {
    const crl = Buffer.from(collateral.pckCrl);
    // 30 82 0a 63 …: the outer length in three bytes (a leading zero), or indefinite with end-of-contents.
    const longer = Buffer.concat([crl.subarray(0, 1), Buffer.from([0x83, 0x00]), crl.subarray(2)]);
    const indefinite = Buffer.concat([
      Buffer.from([0x30, 0x80]),
      crl.subarray(4),
      Buffer.from([0, 0]),
    ]);
    // ecdsa-with-SHA384 (…04 03 03) in the unsigned outer signatureAlgorithm only.
    const sha384 = Buffer.from(crl);
    sha384[2587] = 0x03;
    for (const bad of [longer, indefinite, Buffer.concat([crl, Buffer.from([0])]), sha384]) {
      expect(outcome(bad, collateral.rootCaCrl)).toBe('COLLATERAL_FORMAT');
    }
    expect(outcome(crl, collateral.rootCaCrl)).toBe('accepted');
  });
});
