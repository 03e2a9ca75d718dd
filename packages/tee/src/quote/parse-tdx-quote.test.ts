import { describe, expect, it } from 'vitest';
import { REAL_QUOTES } from '../test-fixtures/real-quotes';
import { SIMULATOR_AGENTS_RESPONSE } from '../test-fixtures/simulator-agents-response';
import { parseTdxQuote } from './parse-tdx-quote';
import { isQuoteFormatError } from './quote-format-error';

const quote = SIMULATOR_AGENTS_RESPONSE.agents[0]!.attestation;

function formatFailure(input: Uint8Array | string): string {
  try {
    parseTdxQuote(input);
  } catch (error) {
    expect(isQuoteFormatError(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('parsed');
}

describe('parseTdxQuote', () => {
  it('reads header, TD report and signature data of a v4 quote', () => {
    const bytes = Buffer.from(quote, 'base64');
    const parsed = parseTdxQuote(quote);
    expect(parsed.header).toMatchObject({
      version: 4,
      attestationKeyType: 2,
      teeType: 0x81,
      qeVendorId: '939a7233f79c4ca9940a0db3957f0607',
    });
    expect(parsed.bodyType).toBe(2);
    expect(parsed.body.reportData).toBe(bytes.subarray(568, 632).toString('hex'));
    expect(parsed.body.mrTd).toBe(bytes.subarray(48 + 136, 48 + 184).toString('hex'));
    expect(parsed.body.rtmr3).toMatch(/^[0-9a-f]{96}$/);
    expect(parsed.body.mrServiceTd).toBeUndefined();
    expect(parsed.debug).toBe(false);
    expect(parsed.signedBytes.length).toBe(632);
    expect(parsed.signature.qeReport.length).toBe(384);
    expect(parsed.signature.pckCertificateChain).toHaveLength(2);
    expect(parsed.certification).toMatchObject({
      outerType: 6,
      innerType: 5,
      outerTrailingBytes: 0,
      chainExtraBytes: 0,
      signatureTrailingBytes: 0,
    });
    expect(parseTdxQuote(new Uint8Array(bytes))).toEqual(parsed);
  });

  it('reads real v4 quotes and a real v5 quote with a TD 1.5 report', () => {
    const dcap = parseTdxQuote(REAL_QUOTES.dcapQvl);
    expect(dcap.header.version).toBe(4);
    expect(dcap.body.mrTd.startsWith('91eb2b44')).toBe(true);
    expect(dcap.body.reportData.startsWith('9a9d48e7')).toBe(true);
    expect(dcap.body.tdAttributes).toBe('0000001000000000');
    expect(dcap.signature.pckCertificateChain).toHaveLength(3);
    const v5 = parseTdxQuote(REAL_QUOTES.v5);
    expect(v5).toMatchObject({ header: { version: 5 }, bodyType: 3 });
    // v5 signs header, body descriptor and the 648-byte TD 1.5 report.
    expect(v5.signedBytes.length).toBe(48 + 6 + 648);
    expect(v5.body.teeTcbSvn2).toMatch(/^[0-9a-f]{32}$/);
    expect(v5.body.mrServiceTd).toMatch(/^[0-9a-f]{96}$/);
    for (const real of Object.values(REAL_QUOTES)) {
      expect(parseTdxQuote(real).qe).toMatchObject({
        mrSigner: 'dc9e2a7c6f948f17474e34a7fc43ed030f7c1563f1babddf6340c82e0e54a8c5',
        isvProdId: 2,
      });
    }
  });

  it('reads the QE report fields at their offsets', () => {
    const { qe, signature } = parseTdxQuote(REAL_QUOTES.sprE4);
    expect(qe.isvSvn).toBe(signature.qeReport[258]! | (signature.qeReport[259]! << 8));
    expect(qe.reportData.slice(64)).toBe('0'.repeat(64));
  });

  it('records an inner certification type other than 5 and bytes left in the outer data', () => {
    const bytes = Buffer.from(quote, 'base64');
    const innerTypeOffset = 636 + 134 + 384 + 64 + 2 + 32;
    expect(bytes.readUInt16LE(innerTypeOffset)).toBe(5);
    bytes.writeUInt16LE(4, innerTypeOffset);
    const parsed = parseTdxQuote(bytes);
    expect(parsed.certification.innerType).toBe(4);
    expect(parsed.signature.pckCertificateChain).toEqual([]);
  });

  it('refuses truncated, foreign and non-base64 input with a FORMAT error', () => {
    const bytes = Buffer.from(quote, 'base64');
    expect(formatFailure(bytes.subarray(0, 700))).toMatch(/Malformed TDX quote: truncated/);
    const v3 = Buffer.from(bytes);
    v3.writeUInt16LE(3, 0);
    expect(formatFailure(v3)).toMatch(/version 3 is not supported/);
    const sgx = Buffer.from(bytes);
    sgx.writeUInt32LE(0, 4);
    expect(formatFailure(sgx)).toMatch(/not TDX/);
    expect(formatFailure('not*base64!')).toMatch(/not valid base64/);
    const v5 = Buffer.from(REAL_QUOTES.v5);
    v5.writeUInt16LE(1, 48);
    expect(formatFailure(v5)).toMatch(/body type 1 is not a TD report/);
    v5.writeUInt16LE(2, 48);
    expect(formatFailure(v5)).toMatch(/body type 2 has size 648, expected 584/);
  });
});
