import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REAL_QUOTES } from '../test-fixtures/real-quotes';
import { SIMULATOR_AGENTS_RESPONSE } from '../test-fixtures/simulator-agents-response';
import { parseTdxQuote } from './parse-tdx-quote';
import { isQuoteFormatError } from './quote-format-error';

const seeds = [
  REAL_QUOTES.dcapQvl,
  REAL_QUOTES.sprE4,
  REAL_QUOTES.v5,
  Buffer.from(SIMULATOR_AGENTS_RESPONSE.agents[0]!.attestation, 'base64'),
];

/** Parses, and if it throws, the error must be the parser's own FORMAT failure. */
function parsesOrFormatError(input: Uint8Array | string): boolean {
  try {
    parseTdxQuote(input);
    return true;
  } catch (error) {
    return isQuoteFormatError(error);
  }
}

describe('parseTdxQuote on hostile input', () => {
  it('throws only its FORMAT failure for random bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2048 }), parsesOrFormatError), {
      numRuns: 500,
    });
  });

  it('throws only its FORMAT failure for random strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 512 }), parsesOrFormatError), { numRuns: 300 });
  });

  it('refuses every truncation of real quotes with a FORMAT failure', () => {
    // The quote ends where its signature data ends; zero padding may follow in the file.
    const endOf = (quote: Buffer) => {
      const sizeOffset = quote.readUInt16LE(0) === 5 ? 48 + 6 + 648 : 48 + 584;
      return sizeOffset + 4 + quote.readUInt32LE(sizeOffset);
    };
    fc.assert(
      fc.property(fc.constantFrom(...seeds), fc.nat(), (quote, cut) => {
        const length = cut % endOf(quote);
        expect(() => parseTdxQuote(quote.subarray(0, length))).toThrow(/Malformed TDX quote/);
        return parsesOrFormatError(quote.subarray(0, length));
      }),
      { numRuns: 300 },
    );
    for (const quote of seeds)
      expect(() => parseTdxQuote(quote.subarray(0, endOf(quote)))).not.toThrow();
  });

  it('survives random byte corruption of real quotes without a foreign error', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 8,
        }),
        (quote, edits) => {
          const corrupted = Buffer.from(quote);
          for (const [offset, value] of edits) corrupted[offset % corrupted.length] = value;
          return parsesOrFormatError(corrupted);
        },
      ),
      { numRuns: 500 },
    );
  });
});
