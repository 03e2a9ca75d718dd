import { describe, expect, it } from 'vitest';
import { SIMULATOR_AGENTS_RESPONSE } from '../test-fixtures/simulator-agents-response';
import { parseTdxQuote } from './parse-tdx-quote';

const quote = SIMULATOR_AGENTS_RESPONSE.agents[0]!.attestation;

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
    expect(parsed.body.reportData).toBe(bytes.subarray(568, 632).toString('hex'));
    expect(parsed.body.mrTd).toBe(bytes.subarray(48 + 136, 48 + 184).toString('hex'));
    expect(parsed.body.rtmr3).toMatch(/^[0-9a-f]{96}$/);
    expect(parsed.debug).toBe(false);
    expect(parsed.signedBytes.length).toBe(632);
    expect(parsed.signature.qeReport.length).toBe(384);
    expect(parsed.signature.pckCertificateChain).toHaveLength(2);
    expect(parseTdxQuote(new Uint8Array(bytes))).toEqual(parsed);
  });

  it('refuses truncated, foreign and non-base64 input with a clear message', () => {
    const bytes = Buffer.from(quote, 'base64');
    expect(() => parseTdxQuote(bytes.subarray(0, 700))).toThrow(/Malformed TDX quote: truncated/);
    const v3 = Buffer.from(bytes);
    v3.writeUInt16LE(3, 0);
    expect(() => parseTdxQuote(v3)).toThrow(/version 3 is not 4/);
    const sgx = Buffer.from(bytes);
    sgx.writeUInt32LE(0, 4);
    expect(() => parseTdxQuote(sgx)).toThrow(/not TDX/);
    expect(() => parseTdxQuote('not*base64!')).toThrow(/not valid base64/);
  });
});
