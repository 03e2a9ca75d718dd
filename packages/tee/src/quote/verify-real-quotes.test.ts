import { describe, expect, it } from 'vitest';
import { COLLATERAL_TIMES, REAL_QUOTES } from '../test-fixtures/real-quotes';
import { parseTdxQuote } from './parse-tdx-quote';
import { verifyQuote } from './verify-quote';

// go-tdx-guest's SPR E4 test quote was made without SEPT_VE_DISABLE (TDATTRIBUTES 0x40000000, PKS only):
// genuine, but refused by default (as dcap-qvl refuses it); these tests are about signatures and chains.
const relaxed = { allowUnsafeTdAttributes: true };
const cases = Object.entries(REAL_QUOTES).map(([name, quote]) => ({
  name,
  quote,
  now: COLLATERAL_TIMES[name as keyof typeof COLLATERAL_TIMES],
}));

describe('verifyQuote on real TDX hardware quotes', () => {
  it.each(cases)('verifies $name to Intel SGX Root CA', ({ quote, now }) => {
    const result = verifyQuote(quote, { now, ...relaxed });
    expect(result).toMatchObject({ valid: true, root: 'intel' });
  });

  it('refuses a TD without SEPT_VE_DISABLE by default (the SPR E4 sample)', () => {
    expect(verifyQuote(REAL_QUOTES.sprE4, { now: COLLATERAL_TIMES.sprE4 })).toMatchObject({
      valid: false,
      failure: 'TD_ATTRIBUTES',
    });
    expect(verifyQuote(REAL_QUOTES.dcapQvl, { now: COLLATERAL_TIMES.dcapQvl })).toMatchObject({
      valid: true,
    });
  });

  it('verifies v4 and v5 alike', () => {
    const versions = cases.map(({ quote, now }) => {
      const result = verifyQuote(quote, { now, ...relaxed });
      return result.valid && [result.quote.header.version, result.quote.bodyType];
    });
    expect(versions).toEqual([
      [4, 2],
      [4, 2],
      [5, 3],
    ]);
  });

  it.each(cases)(
    'rejects every flipped signed byte of $name',
    { timeout: 120_000 },
    ({ quote, now }) => {
      const signedLength = parseTdxQuote(quote).signedBytes.length;
      for (let offset = 0; offset < signedLength; offset += 1) {
        const tampered = Buffer.from(quote);
        tampered[offset]! ^= 0x01;
        const result = verifyQuote(tampered, { now, ...relaxed });
        // Structural bytes (version, key type, TEE type, v5 body descriptor) fail as FORMAT before any signature.
        expect(result.valid, `offset ${offset}`).toBe(false);
        if (!result.valid) expect(['QUOTE_SIGNATURE', 'FORMAT']).toContain(result.failure);
      }
    },
  );

  it('rejects every flipped byte of the QE report and of its signature', () => {
    const { quote, now } = cases[0]!;
    const start = 632 + 4 + 64 + 64 + 6;
    for (let offset = start; offset < start + 384 + 64; offset += 1) {
      const tampered = Buffer.from(quote);
      tampered[offset]! ^= 0x01;
      expect(verifyQuote(tampered, { now, ...relaxed }), `offset ${offset}`).toMatchObject({
        failure: 'QE_REPORT_SIGNATURE',
      });
    }
  });

  it('rejects the flipped inner certification type and a grown outer size distinctly', () => {
    const { quote, now } = cases[0]!;
    const innerType = 632 + 4 + 64 + 64 + 6 + 384 + 64 + 2 + 32;
    const flipped = Buffer.from(quote);
    flipped[innerType]! ^= 0x01;
    expect(verifyQuote(flipped, { now })).toMatchObject({ failure: 'CERTIFICATION_DATA' });
    // Grow the outer size (and the signature data size) by 4: the file's zero padding becomes outer data.
    const grown = Buffer.from(quote);
    grown.writeUInt32LE(grown.readUInt32LE(632) + 4, 632);
    const outerSize = 632 + 4 + 64 + 64 + 2;
    grown.writeUInt32LE(grown.readUInt32LE(outerSize) + 4, outerSize);
    expect(verifyQuote(grown, { now })).toMatchObject({ failure: 'CERTIFICATION_SIZE' });
  });

  it("rejects real quotes outside their certificates' validity", () => {
    expect(verifyQuote(REAL_QUOTES.v5, { now: Date.UTC(2025, 0, 1) })).toMatchObject({
      failure: 'CERTIFICATE_CHAIN',
    });
  });
});
