import { describe, expect, it } from 'vitest';
import { INTEL_SGX_ROOT_CA_PEM } from '../roots/intel-sgx-root-ca';
import { SIMULATOR_ROOT_CA_PEM } from '../roots/simulator-root-ca';
import { SIMULATOR_AGENTS_RESPONSE } from '../test-fixtures/simulator-agents-response';
import { parseTdxQuote } from './parse-tdx-quote';
import { flipByte, withCertificateChain } from './quote-test-support';
import { verifyQuote } from './verify-quote';

const quote = SIMULATOR_AGENTS_RESPONSE.agents[0]!.attestation;
// Recorded before the simulator set SEPT_VE_DISABLE: its TD attributes are all zero.
const simulator = { allowSimulator: true, allowUnsafeTdAttributes: true };
const [leaf, root] = parseTdxQuote(quote).signature.pckCertificateChain as [string, string];
// Offsets in the quote: signature data starts at 636; the QE report at 636 + 134; its auth data 450 later.
const QE_REPORT = 636 + 134;
const QE_AUTH_DATA = QE_REPORT + 384 + 64 + 2;

describe('verifyQuote', () => {
  it('accepts a genuine simulator quote when the simulator is allowed', () => {
    expect(verifyQuote(quote, simulator)).toMatchObject({ valid: true, root: 'simulator' });
  });

  it('rejects it under the production policy: the simulator root is not pinned', () => {
    expect(verifyQuote(quote)).toMatchObject({ valid: false, failure: 'UNTRUSTED_ROOT' });
  });

  it('rejects a flipped byte in the report data, the measurements or the header', () => {
    for (const offset of [570, 48 + 140, 10]) {
      expect(verifyQuote(flipByte(quote, offset), simulator)).toMatchObject({
        valid: false,
        failure: 'QUOTE_SIGNATURE',
      });
    }
  });

  it('rejects a QE report not signed by the PCK leaf, and one that does not bind the key', () => {
    expect(verifyQuote(flipByte(quote, QE_REPORT + 100), simulator)).toMatchObject({
      failure: 'QE_REPORT_SIGNATURE',
    });
    expect(verifyQuote(flipByte(quote, QE_AUTH_DATA + 3), simulator)).toMatchObject({
      failure: 'QE_REPORT_BINDING',
    });
    expect(verifyQuote(flipByte(quote, 636 + 64 + 5), simulator)).toMatchObject({
      failure: 'QE_REPORT_BINDING',
    });
  });

  it('rejects broken certificate chains', () => {
    const reversed = withCertificateChain(quote, [root, leaf]);
    expect(verifyQuote(reversed, simulator)).toMatchObject({ failure: 'CERTIFICATE_CHAIN' });
    const wrongIssuer = withCertificateChain(quote, [leaf, INTEL_SGX_ROOT_CA_PEM]);
    expect(verifyQuote(wrongIssuer, simulator)).toMatchObject({ failure: 'CERTIFICATE_CHAIN' });
    const leafBytes = Buffer.from(leaf.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
    leafBytes[leafBytes.length - 10]! ^= 0x01;
    const forged = `-----BEGIN CERTIFICATE-----\n${leafBytes.toString('base64')}\n-----END CERTIFICATE-----\n`;
    expect(verifyQuote(withCertificateChain(quote, [forged, root]), simulator)).toMatchObject({
      failure: 'CERTIFICATE_CHAIN',
    });
    const rootAsLeaf = withCertificateChain(quote, [SIMULATOR_ROOT_CA_PEM]);
    expect(verifyQuote(rootAsLeaf, simulator)).toMatchObject({ failure: 'QE_REPORT_SIGNATURE' });
  });

  it('accepts a chain that stops below the pinned root and re-encodes faithfully', () => {
    expect(verifyQuote(withCertificateChain(quote, [leaf, root]), simulator)).toMatchObject({
      valid: true,
    });
    expect(verifyQuote(withCertificateChain(quote, [leaf]), simulator)).toMatchObject({
      valid: true,
    });
  });

  it('checks certificate validity at the given time', () => {
    expect(verifyQuote(quote, { ...simulator, now: Date.UTC(2024, 0, 1) })).toMatchObject({
      failure: 'CERTIFICATE_CHAIN',
    });
  });

  it('reports structure problems as FORMAT', () => {
    expect(verifyQuote('AAAA', simulator)).toMatchObject({ valid: false, failure: 'FORMAT' });
  });
});
