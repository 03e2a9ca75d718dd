import { beforeAll, describe, expect, it } from 'vitest';
import { verifyQuote } from '../quote/verify-quote';
import { verifyPlatformTcb } from './verify-platform-tcb';
import { buildTestQuote } from '../test-fixtures/build-test-quote';
import { COLLATERAL_TIMES, REAL_QUOTES, sprE4Collateral } from '../test-fixtures/real-quotes';
import { buildTestCollateral, TEST_COLLATERAL_TIME } from '../test-fixtures/test-collateral';
import { createTestPki, type TestPki } from '../test-fixtures/test-pki';
import { TEST_PLATFORM } from '../test-fixtures/use-test-pki';

// Collateral must be judged by the PKI the quote's own PCK chain ends at. These tests build collateral under
// another trusted root (a private PKI passed as an extra root, as a simulator root would be) and show it cannot
// judge a quote of another root, even when its TCB signer carries Intel's name.
const platform = TEST_PLATFORM;
let a: TestPki;
let b: TestPki;
let misnamed: TestPki;
beforeAll(async () => {
  [a, b, misnamed] = await Promise.all([
    createTestPki(platform),
    createTestPki(platform),
    createTestPki({ ...platform, tcbSigningName: 'CN=Test SGX TCB Signing' }),
  ]);
});

const quoteOf = (pki: TestPki) =>
  buildTestQuote({
    pckKey: pki.pckKey,
    chain: [pki.pckPem, pki.caPem],
    body: { tdAttributes: '0000001000000000' },
  });

describe('collateral is verified against the PCK chain’s own root', () => {
  it("refuses TCB info signed under another trusted root for Intel's real quote (no level matches under Intel)", async () => {
    const intel = sprE4Collateral();
    // Under Intel's own collateral this quote has no matching TCB level.
    expect(
      verifyQuote(REAL_QUOTES.sprE4, { now: COLLATERAL_TIMES.sprE4, collateral: intel }),
    ).toMatchObject({ valid: false, failure: 'TCB_NOT_SUPPORTED' });
    // A foreign root signs a TCB info for the same FMSPC that calls every platform UpToDate.
    const forged = await buildTestCollateral(b, {
      fmspc: '50806F000000',
      levels: [{ sgx: [0], pceSvn: 0, tdx: [0], status: 'UpToDate' }],
      qeLevels: [{ isvsvn: 0, status: 'UpToDate' }],
      dates: { issued: '2023-06-01T00:00:00Z', next: '2023-08-01T00:00:00Z' },
    });
    const result = verifyQuote(REAL_QUOTES.sprE4, {
      now: COLLATERAL_TIMES.sprE4,
      extraRoots: [b.rootPem],
      allowSimulator: true,
      collateral: { ...intel, tcbInfo: forged.tcbInfo, qeIdentity: forged.qeIdentity },
    });
    expect(result).toMatchObject({
      valid: false,
      failure: 'COLLATERAL_SIGNATURE',
      message: expect.stringContaining("does not end at the quote's root") as string,
    });
  });

  it('refuses collateral of one trusted private root for a quote of another', async () => {
    const options = { extraRoots: [a.rootPem, b.rootPem], now: TEST_COLLATERAL_TIME };
    const ofA = await buildTestCollateral(a);
    const ofB = await buildTestCollateral(b);
    expect(verifyQuote(quoteOf(a), { ...options, collateral: ofA })).toMatchObject({
      valid: true,
      tcb: { status: 'UpToDate' },
    });
    expect(verifyQuote(quoteOf(a), { ...options, collateral: ofB })).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
    // Only the TCB info foreign: still refused.
    expect(
      verifyQuote(quoteOf(a), { ...options, collateral: { ...ofA, tcbInfo: ofB.tcbInfo } }),
    ).toMatchObject({ failure: 'COLLATERAL_SIGNATURE' });
    expect(
      verifyQuote(quoteOf(a), { ...options, collateral: { ...ofA, qeIdentity: ofB.qeIdentity } }),
    ).toMatchObject({ failure: 'COLLATERAL_SIGNATURE' });
    expect(verifyPlatformTcb(quoteOf(a), ofB.tcbInfo, options)).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
    expect(verifyPlatformTcb(quoteOf(a), ofA.tcbInfo, options)).toMatchObject({ valid: true });
  });

  it('requires the Intel SGX TCB Signing name under every root, private ones included', async () => {
    const result = verifyQuote(quoteOf(misnamed), {
      extraRoots: [misnamed.rootPem],
      now: TEST_COLLATERAL_TIME,
      collateral: await buildTestCollateral(misnamed),
    });
    expect(result).toMatchObject({
      valid: false,
      failure: 'COLLATERAL_SIGNATURE',
      message: 'TCB info is not signed by Intel SGX TCB Signing',
    });
  });
});
