import { describe, expect, it } from 'vitest';
import { parseDcapQvlCollateral } from '../collateral/parse-collateral';
import { buildTestQuote } from '../test-fixtures/build-test-quote';
import { buildTestCollateral, TEST_COLLATERAL_TIME } from '../test-fixtures/test-collateral';
import { COLLATERAL_TIMES, DCAP_QVL_COLLATERAL, REAL_QUOTES } from '../test-fixtures/real-quotes';
import { useTestPki } from '../test-fixtures/use-test-pki';
import { parseTdxQuote } from './parse-tdx-quote';
import { withCertificateChain } from './quote-test-support';
import { verifyQuote } from './verify-quote';

// Intel QVL accepts a PCK chain of exactly three certificates (PCK, platform CA, root) and refuses any other
// with STATUS_UNSUPPORTED_PCK_CERT_FORMAT. A longer chain puts a CA in the path that no CRL of the collateral
// covers: the PCK CRL is the issuing CA's, the root CA CRL only lists what the root issued.
const real = REAL_QUOTES.dcapQvl.toString('base64');
const now = COLLATERAL_TIMES.dcapQvl;
const collateral = parseDcapQvlCollateral(DCAP_QVL_COLLATERAL);
const [leaf, ca, root] = parseTdxQuote(real).signature.pckCertificateChain as [
  string,
  string,
  string,
];
const unsupported = { valid: false, failure: 'PCK_CERT_UNSUPPORTED_FORMAT' };

describe("a real Intel quote's PCK chain", () => {
  it('verifies as Intel made it: PCK certificate, platform CA, Intel SGX Root CA', () => {
    expect(
      verifyQuote(withCertificateChain(real, [leaf, ca, root]), { now, collateral }),
    ).toMatchObject({ valid: true, tcb: { status: 'UpToDate' } });
  });

  it('is refused with four certificates (the root twice, or the CA twice), with or without collateral', () => {
    for (const chain of [
      [leaf, ca, root, root],
      [leaf, ca, ca, root],
    ]) {
      const quote = withCertificateChain(real, chain);
      expect(verifyQuote(quote, { now })).toMatchObject(unsupported);
      expect(verifyQuote(quote, { now, collateral })).toMatchObject(unsupported);
    }
  });

  it('is refused without its root (QVL wants the three), though the platform CA chains to the pinned root', () => {
    expect(verifyQuote(withCertificateChain(real, [leaf, ca]), { now })).toMatchObject(unsupported);
  });
});

describe('a CA between the platform CA and the root (private PKI)', () => {
  const pki = useTestPki();
  const dates = [new Date('2026-01-01T00:00:00Z'), new Date('2026-02-01T00:00:00Z')] as const;

  it('is refused, so a sub-CA revoked by the platform CA (a CRL no collateral carries) cannot vouch', async () => {
    const sub = await pki.subCa();
    // Before: the PCK CRL of the sub-CA and the root CA CRL were all that was checked, and this verified.
    const deeper = { ...(await buildTestCollateral(pki)), pckCrl: await sub.crl([], ...dates) };
    for (const chain of [
      [sub.pckPem, sub.subCaPem, pki.caPem],
      [sub.pckPem, sub.subCaPem, pki.caPem, pki.rootPem],
    ]) {
      const quote = buildTestQuote({ pckKey: sub.pckKey, chain });
      const options = { extraRoots: [pki.rootPem], now: TEST_COLLATERAL_TIME };
      expect(verifyQuote(quote, options)).toMatchObject(unsupported);
      expect(verifyQuote(quote, { ...options, collateral: deeper })).toMatchObject(unsupported);
    }
  });

  it('checks the platform CA against the root CA CRL in a three-certificate chain, root included or not', async () => {
    for (const chain of [
      [pki.pckPem, pki.caPem],
      [pki.pckPem, pki.caPem, pki.rootPem],
    ]) {
      const quote = buildTestQuote({ pckKey: pki.pckKey, chain });
      const options = { extraRoots: [pki.rootPem], now: TEST_COLLATERAL_TIME };
      expect(
        verifyQuote(quote, { ...options, collateral: await buildTestCollateral(pki) }),
      ).toMatchObject({ valid: true });
      const revoked = await buildTestCollateral(pki, { revokedCa: true });
      expect(verifyQuote(quote, { ...options, collateral: revoked })).toMatchObject({
        valid: false,
        failure: 'REVOKED',
        message: 'CN=Test SGX PCK Platform CA is revoked',
      });
    }
  });
});
