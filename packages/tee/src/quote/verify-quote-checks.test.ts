import { describe, expect, it } from 'vitest';
import { buildTestQuote, type TestQuoteInput } from '../test-fixtures/build-test-quote';
import { useTestPki } from '../test-fixtures/use-test-pki';
import { verifyQuote } from './verify-quote';

const pki = useTestPki();

function verify(overrides: Partial<TestQuoteInput> = {}) {
  const quote = buildTestQuote({
    pckKey: pki.pckKey,
    chain: [pki.pckPem, pki.caPem],
    ...overrides,
  });
  return verifyQuote(quote, { extraRoots: [pki.rootPem] });
}

describe('verifyQuote: the quoting enclave and its certification data', () => {
  it('accepts a well-formed quote of a private root only when that root is passed', () => {
    expect(verify()).toMatchObject({ valid: true, root: 'custom' });
    expect(verify({ version: 5 })).toMatchObject({ valid: true, root: 'custom' });
    const quote = buildTestQuote({ pckKey: pki.pckKey, chain: [pki.pckPem, pki.caPem] });
    expect(verifyQuote(quote)).toMatchObject({ failure: 'UNTRUSTED_ROOT' });
  });

  it('pins Intel TD QE MRSIGNER and ISVPRODID', () => {
    expect(verify({ qeMrSigner: 'ab'.repeat(32) })).toMatchObject({ failure: 'QE_IDENTITY' });
    expect(verify({ qeIsvProdId: 1 })).toMatchObject({ failure: 'QE_IDENTITY' });
  });

  it('requires the zero upper half of the QE report data', () => {
    expect(verify({ qeReportDataUpperByte: 1 })).toMatchObject({ failure: 'QE_REPORT_DATA' });
  });

  it("requires Intel's QE vendor id", () => {
    expect(verify({ qeVendorId: '00'.repeat(16) })).toMatchObject({ failure: 'QE_VENDOR' });
  });

  it('requires the inner certification type 5 and an outer size that fits its content', () => {
    expect(verify({ innerCertificationType: 4 })).toMatchObject({ failure: 'CERTIFICATION_DATA' });
    expect(verify({ outerPadding: 16 })).toMatchObject({ failure: 'CERTIFICATION_SIZE' });
  });
});
