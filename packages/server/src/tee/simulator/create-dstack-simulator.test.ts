import { parseTdxQuote, verifyQuote } from '@parley/tee';
import { describe, expect, it } from 'vitest';
import { createDstackSimulator } from './create-dstack-simulator';

const reportData = new Uint8Array(64).fill(9);

describe('createDstackSimulator quotes', () => {
  it.each([4, 5] as const)(
    'issues a v%i quote that verifies under the simulator root',
    async (version) => {
      const simulator = createDstackSimulator({ salt: 'simulator salt', quoteVersion: version });
      const { quote } = await simulator.getQuote(reportData);
      const bytes = Buffer.from(quote, 'hex');
      const result = verifyQuote(bytes, { allowSimulator: true, expectedReportData: reportData });
      expect(result).toMatchObject({ valid: true, root: 'simulator' });
      const parsed = parseTdxQuote(bytes);
      expect([parsed.header.version, parsed.bodyType]).toEqual(version === 5 ? [5, 3] : [4, 2]);
      // The same TD gives the same measurements whatever the quote version.
      const other = createDstackSimulator({
        salt: 'simulator salt',
        quoteVersion: version === 4 ? 5 : 4,
      });
      const otherBody = parseTdxQuote(
        Buffer.from((await other.getQuote(reportData)).quote, 'hex'),
      ).body;
      expect(otherBody.rtmr3).toBe(parsed.body.rtmr3);
      expect(otherBody.mrTd).toBe(parsed.body.mrTd);
    },
  );

  it("carries Intel's TD QE identity, so the verifier's pins apply to simulator quotes too", async () => {
    const { quote } = await createDstackSimulator({ salt: 'simulator salt' }).getQuote(reportData);
    expect(parseTdxQuote(Buffer.from(quote, 'hex')).qe).toMatchObject({
      mrSigner: 'dc9e2a7c6f948f17474e34a7fc43ed030f7c1563f1babddf6340c82e0e54a8c5',
      isvProdId: 2,
    });
    expect(verifyQuote(Buffer.from(quote, 'hex'))).toMatchObject({ failure: 'UNTRUSTED_ROOT' });
  });
});
