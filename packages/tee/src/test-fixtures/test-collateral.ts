import type { TdxCollateral } from '../collateral/collateral';
import type { TestPki } from './test-pki';

/** Dates of test collateral and a time inside them. */
export const TEST_COLLATERAL_TIME = Date.UTC(2026, 0, 15);
const ISSUED = '2026-01-01T00:00:00Z';
const NEXT = '2026-02-01T00:00:00Z';

const components = (svns: number[]) =>
  Array.from({ length: 16 }, (_, index) => ({ svn: svns[index] ?? 0 }));

/** One platform TCB level for {@link buildTestCollateral}. */
export interface TestTcbLevel {
  sgx: number[];
  pceSvn: number;
  tdx: number[];
  status: string;
  advisories?: string[];
}

/** What {@link buildTestCollateral} varies; the defaults give an up-to-date platform. */
export interface TestCollateralInput {
  fmspc?: string;
  levels?: TestTcbLevel[];
  qeLevels?: { isvsvn: number; status: string; advisories?: string[] }[];
  moduleIdentities?: unknown[];
  revokedPck?: boolean;
  revokedCa?: boolean;
  /** `issueDate` and `nextUpdate` of TCB info, QE identity and CRLs (ISO). */
  dates?: { issued: string; next: string };
}

/** Collateral in Intel's shapes for a {@link TestPki}, signed by its TCB signing key. Tests only. */
export async function buildTestCollateral(
  pki: TestPki,
  input: TestCollateralInput = {},
): Promise<TdxCollateral> {
  const [issued, next] = input.dates ? [input.dates.issued, input.dates.next] : [ISSUED, NEXT];
  const levels = input.levels ?? [{ sgx: [2], pceSvn: 11, tdx: [3, 0, 4], status: 'UpToDate' }];
  const tcbInfo = JSON.stringify({
    id: 'TDX',
    version: 3,
    issueDate: issued,
    nextUpdate: next,
    fmspc: input.fmspc ?? '00906ED50000',
    pceId: '0000',
    tcbType: 0,
    tcbEvaluationDataNumber: 19,
    tdxModule: {
      mrsigner: '00'.repeat(48),
      attributes: '00'.repeat(8),
      attributesMask: 'FF'.repeat(8),
    },
    ...(input.moduleIdentities && { tdxModuleIdentities: input.moduleIdentities }),
    tcbLevels: levels.map((level) => ({
      tcb: {
        sgxtcbcomponents: components(
          level.sgx.length === 1 ? (Array(16).fill(level.sgx[0]) as number[]) : level.sgx,
        ),
        pcesvn: level.pceSvn,
        tdxtcbcomponents: components(level.tdx),
      },
      tcbDate: '2025-11-01T00:00:00Z',
      tcbStatus: level.status,
      ...(level.advisories && { advisoryIDs: level.advisories }),
    })),
  });
  const qeIdentity = JSON.stringify({
    id: 'TD_QE',
    version: 2,
    issueDate: issued,
    nextUpdate: next,
    tcbEvaluationDataNumber: 19,
    miscselect: '00000000',
    miscselectMask: 'FFFFFFFF',
    attributes: '11000000000000000000000000000000',
    attributesMask: 'FBFFFFFFFFFFFFFF0000000000000000',
    mrsigner: 'DC9E2A7C6F948F17474E34A7FC43ED030F7C1563F1BABDDF6340C82E0E54A8C5',
    isvprodid: 2,
    tcbLevels: (input.qeLevels ?? [{ isvsvn: 4, status: 'UpToDate' }]).map((level) => ({
      tcb: { isvsvn: level.isvsvn },
      tcbDate: '2025-11-01T00:00:00Z',
      tcbStatus: level.status,
      ...(level.advisories && { advisoryIDs: level.advisories }),
    })),
  });
  const [from, to] = [new Date(issued), new Date(next)];
  const chain = [pki.tcbSigningPem, pki.rootPem];
  return {
    tcbInfo: { body: tcbInfo, signature: pki.signCollateral(tcbInfo), issuerChain: chain },
    qeIdentity: { body: qeIdentity, signature: pki.signCollateral(qeIdentity), issuerChain: chain },
    pckCrl: await pki.crl('ca', input.revokedPck ? ['99', pki.pckSerial] : ['99'], from, to),
    rootCaCrl: await pki.crl('root', input.revokedCa ? ['02'] : [], from, to),
  };
}
