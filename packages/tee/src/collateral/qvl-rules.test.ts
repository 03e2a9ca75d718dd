import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../quote/verify-quote';
import { buildTestQuote, type TestQuoteInput } from '../test-fixtures/build-test-quote';
import {
  buildTestCollateral,
  TEST_COLLATERAL_TIME,
  type TestCollateralInput,
} from '../test-fixtures/test-collateral';
import { useTestPki } from '../test-fixtures/use-test-pki';

// Intel QVL's rules where Parley used to differ: the TD 1.5 relaunch check, TCB level order, advisories.
const pki = useTestPki();

async function verify(collateral: TestCollateralInput, quote: Partial<TestQuoteInput> = {}) {
  const bytes = buildTestQuote({ pckKey: pki.pckKey, chain: [pki.pckPem, pki.caPem], ...quote });
  return verifyQuote(bytes, {
    extraRoots: [pki.rootPem],
    now: TEST_COLLATERAL_TIME,
    acceptedTcbStatuses: ['UpToDate', 'OutOfDate', 'TDRelaunchAdvised', 'SWHardeningNeeded'],
    collateral: await buildTestCollateral(pki, collateral),
  });
}

const moduleLevel = (isvsvn: number, status: string, advisories?: string[]) => ({
  tcb: { isvsvn },
  tcbDate: '2025-11-01T00:00:00Z',
  tcbStatus: status,
  ...(advisories && { advisoryIDs: advisories }),
});
const moduleIdentities = [
  {
    id: 'TDX_01',
    mrsigner: '00'.repeat(48),
    attributes: '00'.repeat(8),
    attributesMask: 'FF'.repeat(8),
    tcbLevels: [moduleLevel(6, 'UpToDate'), moduleLevel(2, 'OutOfDate', ['INTEL-SA-M'])],
  },
];
// The platform's newest level needs TDX component 2 at 4; TDX 1.5 leaves bytes 0-1 to the module identity.
const levels = [
  { sgx: [2], pceSvn: 11, tdx: [0, 0, 4], status: 'UpToDate' },
  { sgx: [2], pceSvn: 11, tdx: [0, 0, 3], status: 'OutOfDate', advisories: ['INTEL-SA-P'] },
];

describe("Intel QVL's TD 1.5 relaunch check (TEE_TCB_SVN2)", () => {
  it('is TDRelaunchAdvised when the loaded module (TEE_TCB_SVN2) meets the newest levels', async () => {
    // Launched on module SVN 2 (out of date); the module now loaded is SVN 6 with component 2 at 4.
    const quote = { version: 5 as const, body: { teeTcbSvn: '02010400', teeTcbSvn2: '06010400' } };
    expect(await verify({ levels, moduleIdentities }, quote)).toMatchObject({
      valid: true,
      tcb: { status: 'TDRelaunchAdvised', parts: { tdxModule: 'OutOfDate' } },
    });
  });

  it('stays OutOfDate when TEE_TCB_SVN2 is not newer, for a v4 quote, or with an out-of-date QE', async () => {
    const stale = { version: 5 as const, body: { teeTcbSvn: '02010400', teeTcbSvn2: '05010400' } };
    expect(await verify({ levels, moduleIdentities }, stale)).toMatchObject({
      tcb: { status: 'OutOfDate' },
    });
    expect(
      await verify({ levels, moduleIdentities }, { body: { teeTcbSvn: '02010400' } }),
    ).toMatchObject({ tcb: { status: 'OutOfDate' } });
    const fresh = { version: 5 as const, body: { teeTcbSvn: '02010400', teeTcbSvn2: '06010400' } };
    const qeLevels = [
      { isvsvn: 8, status: 'UpToDate' },
      { isvsvn: 2, status: 'OutOfDate' },
    ];
    expect(await verify({ levels, moduleIdentities, qeLevels }, fresh)).toMatchObject({
      tcb: { status: 'OutOfDate' },
    });
    // A relaunch is not advised by default: only UpToDate is accepted unless the caller widens it.
    const bytes = buildTestQuote({ pckKey: pki.pckKey, chain: [pki.pckPem, pki.caPem], ...fresh });
    expect(
      verifyQuote(bytes, {
        extraRoots: [pki.rootPem],
        now: TEST_COLLATERAL_TIME,
        collateral: await buildTestCollateral(pki, { levels, moduleIdentities }),
      }),
    ).toMatchObject({ valid: false, failure: 'TCB_STATUS' });
  });
});

describe("Intel QVL's TCB level order and advisories", () => {
  it('matches levels in Intel’s order (newest first) whatever order the JSON lists them in', async () => {
    const reversed = [
      { sgx: [1], pceSvn: 5, tdx: [1, 0, 1], status: 'OutOfDate', advisories: ['INTEL-SA-OLD'] },
      { sgx: [2], pceSvn: 11, tdx: [3, 0, 4], status: 'UpToDate' },
    ];
    expect(await verify({ levels: reversed })).toMatchObject({
      tcb: { status: 'UpToDate', advisoryIds: [] },
    });
  });

  it("reports the matched platform level's advisories, the module's and QE's beside them", async () => {
    const quote = { version: 5 as const, body: { teeTcbSvn: '02010300' } };
    const qeLevels = [{ isvsvn: 4, status: 'UpToDate', advisories: ['INTEL-SA-Q'] }];
    expect(await verify({ levels, moduleIdentities, qeLevels }, quote)).toMatchObject({
      tcb: {
        status: 'OutOfDate',
        advisoryIds: ['INTEL-SA-P'],
        partAdvisoryIds: {
          platform: ['INTEL-SA-P'],
          tdxModule: ['INTEL-SA-M'],
          qe: ['INTEL-SA-Q'],
        },
      },
    });
  });
});
