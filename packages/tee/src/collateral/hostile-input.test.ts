import { X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import { describe, expect, it } from 'vitest';
import {
  verifyAgentAttestation,
  verifyAgentsAttestation,
} from '../attestation/verify-agent-attestation';
import { parseTdxQuote } from '../quote/parse-tdx-quote';
import { verifyQuote } from '../quote/verify-quote';
import { COLLATERAL_TIMES, DCAP_QVL_COLLATERAL, REAL_QUOTES } from '../test-fixtures/real-quotes';
import { checkRevocation } from './check-revocation';
import { failureOf } from './collateral-error';
import { collateralFromPcs, parseDcapQvlCollateral } from './parse-collateral';
import { verifyPlatformTcb } from './verify-platform-tcb';

// An untrusted PCCS chooses the CRL bytes. Every single-bit flip of Intel's real PCK CRL must make the
// verification fail with a named reason; before, 32 of them made the ASN.1 parser throw a RangeError.
const collateral = parseDcapQvlCollateral(DCAP_QVL_COLLATERAL);
const now = new Date(COLLATERAL_TIMES.dcapQvl);
const chain = parseTdxQuote(REAL_QUOTES.dcapQvl).signature.pckCertificateChain.map(
  (pem) => new X509Certificate(pem),
);
const root = chain.at(-1)!;

function flipped(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = new Uint8Array(bytes);
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

function asn1Throws(bytes: Uint8Array): boolean {
  try {
    asn1js.fromBER(bytes);
    return false;
  } catch {
    return true;
  }
}

// The bits of that CRL whose flip makes asn1js.fromBER throw (found by flipping all 21,304, once: 135 s here).
const PARSER_CRASHING_BITS = [
  276, 564, 756, 788, 964, 969, 2006, 2627, 10989, 11573, 11665, 12045, 12099, 12706, 13574, 13766,
  14194, 14195, 14241, 14252, 18461, 18518, 18696, 18699, 18946, 18947, 19285, 19377, 19562, 19987,
  20315, 20368,
];
// PARLEY_TEE_FULL_SWEEP=1 flips every bit; the default flips every 41st and the parser-crashing ones.
const FULL = process.env.PARLEY_TEE_FULL_SWEEP === '1';

function revocationOutcome(crl: Uint8Array): string {
  try {
    checkRevocation({
      pckChain: chain.slice(0, -1),
      root,
      signers: [],
      pckCrl: crl,
      rootCaCrl: collateral.rootCaCrl,
      now,
    });
    return 'accepted';
  } catch (error) {
    return failureOf(error) ?? `threw ${(error as Error).name}`;
  }
}

describe('hostile CRLs', () => {
  it('fails the PCK CRL flips that crash the ASN.1 parser with COLLATERAL_FORMAT, through verifyQuote', () => {
    expect(collateral.pckCrl.length * 8).toBe(21_304);
    for (const bit of PARSER_CRASHING_BITS) {
      const crl = flipped(collateral.pckCrl, bit);
      // The input the parser throws on is really exercised.
      expect(asn1Throws(crl)).toBe(true);
      expect(
        verifyQuote(REAL_QUOTES.dcapQvl, { now, collateral: { ...collateral, pckCrl: crl } }),
      ).toMatchObject({ valid: false, failure: 'COLLATERAL_FORMAT' });
    }
  });

  it(
    'gives single-bit flips of the real PCK CRL a named failure, never a throw of another kind',
    { timeout: FULL ? 900_000 : 120_000 },
    () => {
      const bits = collateral.pckCrl.length * 8;
      const outcomes = new Map<string, number>();
      for (let bit = 0; bit < bits; bit += FULL ? 1 : 41) {
        const outcome = revocationOutcome(flipped(collateral.pckCrl, bit));
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      expect([...outcomes.keys()].filter((outcome) => outcome.startsWith('threw'))).toEqual([]);
      expect(outcomes.get('COLLATERAL_SIGNATURE')).toBeGreaterThan(0);
      expect(outcomes.get('COLLATERAL_FORMAT')).toBeGreaterThan(0);
    },
  );
});

describe('nothing exported throws on bad input', () => {
  it('fails invalid options instead of throwing', () => {
    for (const options of [
      { now: new Date('x') },
      { now: Number.NaN },
      { extraRoots: ['not a certificate'] },
    ]) {
      expect(verifyQuote(REAL_QUOTES.dcapQvl, options)).toMatchObject({
        valid: false,
        failure: 'OPTIONS',
      });
    }
    expect(
      verifyPlatformTcb(REAL_QUOTES.dcapQvl, collateral.tcbInfo, { now: new Date('x') }),
    ).toMatchObject({
      valid: false,
      failure: 'OPTIONS',
    });
  });

  it('fails malformed quotes, collateral, measurement policies and agent records', () => {
    const junk: unknown[] = [null, 42, {}, [], 'zz', '', new Uint8Array(3)];
    for (const value of junk) {
      expect(() => verifyQuote(value as string)).not.toThrow();
      expect(verifyQuote(value as string)).toMatchObject({ valid: false });
      const withCollateral = verifyQuote(REAL_QUOTES.dcapQvl, {
        now,
        collateral: { ...collateral, tcbInfo: value } as never,
      });
      expect(withCollateral).toMatchObject({ valid: false });
      expect(
        verifyQuote(REAL_QUOTES.dcapQvl, {
          now,
          measurements: { mrTd: value, tdAttributes: value } as never,
        }),
      ).toMatchObject({ valid: false });
      expect(verifyAgentAttestation(value as never)).toMatchObject({ valid: false });
      expect(verifyAgentsAttestation(value as never)).toMatchObject({ valid: false });
      expect(verifyPlatformTcb(REAL_QUOTES.dcapQvl, value as never, { now })).toMatchObject({
        valid: false,
      });
    }
    expect(
      verifyQuote(REAL_QUOTES.dcapQvl, {
        now,
        collateral: { ...collateral, pckCrl: new Uint8Array() },
      }),
    ).toMatchObject({
      failure: 'COLLATERAL_FORMAT',
    });
  });

  it('parses malformed collateral text only into a COLLATERAL_FORMAT error', () => {
    const inputs = [
      () => parseDcapQvlCollateral('{'),
      () => parseDcapQvlCollateral('null'),
      () => parseDcapQvlCollateral({ ...JSON.parse(DCAP_QVL_COLLATERAL), pck_crl: 5 }),
      () =>
        collateralFromPcs({
          tcbInfoResponse: '{"tcbInfo":{},"signature":"00"}',
          tcbInfoIssuerChain: '%E0%A4%A',
          qeIdentityResponse: '',
          qeIdentityIssuerChain: '',
          pckCrl: '',
          rootCaCrl: '',
        }),
    ];
    for (const input of inputs) {
      let error: unknown;
      try {
        input();
      } catch (caught) {
        error = caught;
      }
      expect(failureOf(error)).toBe('COLLATERAL_FORMAT');
    }
  });
});
