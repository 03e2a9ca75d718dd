import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../quote/verify-quote';
import { TCB_STATUSES } from './tcb-evaluation';
import { buildTestQuote, type TestQuoteInput } from '../test-fixtures/build-test-quote';
import {
  buildTestCollateral,
  TEST_COLLATERAL_TIME,
  type TestCollateralInput,
} from '../test-fixtures/test-collateral';
import { createTestPki } from '../test-fixtures/test-pki';
import { useTestPki } from '../test-fixtures/use-test-pki';

const pki = useTestPki();

async function verify(collateral: TestCollateralInput = {}, quote: Partial<TestQuoteInput> = {}) {
  const bytes = buildTestQuote({ pckKey: pki.pckKey, chain: [pki.pckPem, pki.caPem], ...quote });
  return verifyQuote(bytes, {
    extraRoots: [pki.rootPem],
    now: TEST_COLLATERAL_TIME,
    // These tests read the evaluated status; the default accepts only UpToDate.
    acceptedTcbStatuses: TCB_STATUSES,
    collateral: await buildTestCollateral(pki, collateral),
  });
}

const OLD = { sgx: [1], pceSvn: 5, tdx: [1, 0, 1] };

describe('collateral evaluation under a private root', () => {
  it('is UpToDate when the platform meets the newest level', async () => {
    expect(await verify()).toMatchObject({
      valid: true,
      tcb: { status: 'UpToDate', advisoryIds: [], fmspc: '00906ed50000', pceId: '0000' },
    });
  });

  it('fails a revoked PCK certificate, and a revoked CA, as REVOKED', async () => {
    expect(await verify({ revokedPck: true })).toMatchObject({
      failure: 'REVOKED',
      message: 'the PCK certificate is revoked',
    });
    expect(await verify({ revokedCa: true })).toMatchObject({ failure: 'REVOKED' });
  });

  it('finds the first level the platform meets and reports its advisories', async () => {
    const levels = [
      { sgx: [3], pceSvn: 11, tdx: [3, 0, 4], status: 'UpToDate' },
      {
        sgx: [2],
        pceSvn: 11,
        tdx: [3, 0, 4],
        status: 'SWHardeningNeeded',
        advisories: ['INTEL-SA-1'],
      },
      { ...OLD, status: 'OutOfDate', advisories: ['INTEL-SA-1', 'INTEL-SA-2'] },
    ];
    expect(await verify({ levels })).toMatchObject({
      tcb: { status: 'SWHardeningNeeded', advisoryIds: ['INTEL-SA-1'] },
    });
    // A TDX component below the second level drops the platform to the third.
    expect(await verify({ levels }, { body: { teeTcbSvn: '03000300' } })).toMatchObject({
      tcb: { status: 'OutOfDate', advisoryIds: ['INTEL-SA-1', 'INTEL-SA-2'] },
    });
    expect(await verify({ levels: levels.slice(0, 1) })).toMatchObject({
      failure: 'TCB_NOT_SUPPORTED',
    });
  });

  it('converges the QE identity status with the platform status', async () => {
    const qeLevels = [
      { isvsvn: 8, status: 'UpToDate' },
      { isvsvn: 2, status: 'OutOfDate', advisories: ['INTEL-SA-QE'] },
    ];
    expect(await verify({ qeLevels })).toMatchObject({
      tcb: {
        status: 'OutOfDate',
        // As Intel's verifier: the advisories are the matched platform level's; the QE's are beside them.
        advisoryIds: [],
        partAdvisoryIds: { platform: [], qe: ['INTEL-SA-QE'] },
        parts: { platform: 'UpToDate', qe: 'OutOfDate' },
      },
    });
    const levels = [{ sgx: [2], pceSvn: 11, tdx: [3, 0, 4], status: 'ConfigurationNeeded' }];
    expect(await verify({ qeLevels, levels })).toMatchObject({
      tcb: { status: 'OutOfDateConfigurationNeeded' },
    });
    expect(await verify({ qeLevels: [{ isvsvn: 9, status: 'UpToDate' }] })).toMatchObject({
      failure: 'TCB_NOT_SUPPORTED',
    });
  });

  it('applies the TD 1.5 module rules: TDX_<major> identity judges the module SVN', async () => {
    const moduleIdentities = [
      {
        id: 'TDX_01',
        mrsigner: '00'.repeat(48),
        attributes: '00'.repeat(8),
        attributesMask: 'FF'.repeat(8),
        tcbLevels: [
          { tcb: { isvsvn: 6 }, tcbDate: '2025-11-01T00:00:00Z', tcbStatus: 'UpToDate' },
          {
            tcb: { isvsvn: 2 },
            tcbDate: '2024-01-01T00:00:00Z',
            tcbStatus: 'OutOfDate',
            advisoryIDs: ['INTEL-SA-M'],
          },
        ],
      },
    ];
    // TEE TCB SVN bytes 0 and 1 (module SVN 4, major version 1) are left to the module identity.
    const levels = [{ sgx: [2], pceSvn: 11, tdx: [9, 9, 4], status: 'UpToDate' }];
    expect(
      await verify({ levels, moduleIdentities }, { version: 5, body: { teeTcbSvn: '04010400' } }),
    ).toMatchObject({
      tcb: {
        status: 'OutOfDate',
        advisoryIds: [],
        partAdvisoryIds: { tdxModule: ['INTEL-SA-M'] },
        parts: { tdxModule: 'OutOfDate' },
      },
    });
    expect(
      await verify({ levels, moduleIdentities }, { version: 5, body: { teeTcbSvn: '07010400' } }),
    ).toMatchObject({ tcb: { status: 'UpToDate' } });
    expect(
      await verify({ levels, moduleIdentities }, { body: { teeTcbSvn: '04020400' } }),
    ).toMatchObject({ failure: 'TCB_NOT_SUPPORTED' });
    expect(
      await verify({ moduleIdentities }, { body: { mrSignerSeam: '01'.repeat(48) } }),
    ).toMatchObject({ failure: 'TCB_NOT_SUPPORTED' });
  });

  it('refuses collateral for another FMSPC, and statuses the policy does not accept', async () => {
    expect(await verify({ fmspc: '00906ED50001' })).toMatchObject({
      failure: 'COLLATERAL_MISMATCH',
    });
    const bytes = buildTestQuote({ pckKey: pki.pckKey, chain: [pki.pckPem, pki.caPem] });
    const collateral = await buildTestCollateral(pki, {
      levels: [{ sgx: [2], pceSvn: 11, tdx: [3, 0, 4], status: 'SWHardeningNeeded' }],
    });
    const options = { extraRoots: [pki.rootPem], now: TEST_COLLATERAL_TIME, collateral };
    // Secure default: UpToDate only; the caller widens it knowingly.
    // The refused status is a field, not only words in the message.
    expect(verifyQuote(bytes, options)).toMatchObject({
      failure: 'TCB_STATUS',
      message: 'TCB status SWHardeningNeeded is not accepted',
      tcb: { status: 'SWHardeningNeeded', fmspc: '00906ed50000' },
    });
    expect(
      verifyQuote(bytes, { ...options, acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'] }),
    ).toMatchObject({ valid: true });
    // Revoked is never accepted, even when listed.
    const revoked = await buildTestCollateral(pki, {
      levels: [{ sgx: [2], pceSvn: 11, tdx: [3, 0, 4], status: 'Revoked' }],
    });
    expect(
      verifyQuote(bytes, { ...options, collateral: revoked, acceptedTcbStatuses: TCB_STATUSES }),
    ).toMatchObject({ failure: 'TCB_STATUS', tcb: { status: 'Revoked' } });
  });

  it('refuses collateral signed by a key that is not the TCB signing key', async () => {
    const collateral = await buildTestCollateral(pki);
    const other = await createTestPki({
      fmspc: '00906ed50000',
      pceId: '0000',
      components: [],
      pceSvn: 0,
    });
    collateral.tcbInfo.signature = other.signCollateral(collateral.tcbInfo.body);
    const bytes = buildTestQuote({ pckKey: pki.pckKey, chain: [pki.pckPem, pki.caPem] });
    expect(
      verifyQuote(bytes, { extraRoots: [pki.rootPem], now: TEST_COLLATERAL_TIME, collateral }),
    ).toMatchObject({ failure: 'COLLATERAL_SIGNATURE' });
  });
});
