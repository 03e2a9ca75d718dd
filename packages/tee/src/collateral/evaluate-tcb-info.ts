import type { X509Certificate } from 'node:crypto';
import type { TdxQuote } from '../quote/tdx-quote';
import { TDX_QUOTE } from '../quote/tdx-quote-layout';
import { certificateFields } from './certificate-fields';
import { collateralError } from './collateral-error';
import type { TdxTcbInfo } from './intel-collateral-schemas';
import { matchTcbLevel, type MatchedTcbLevel } from './match-tcb-level';
import { byIsvSvn, matchTdxModule, moduleIdentityFor } from './match-tdx-module';
import { parseSgxExtensions, SGX_EXTENSION_OID } from './sgx-extensions';
import type { TcbStatus } from './tcb-evaluation';
import { convergeStatus, type StatusWithAdvisories } from './tcb-status';

/** The platform's part of a TCB evaluation: TCB level and TDX module. */
export interface PlatformTcb extends StatusWithAdvisories {
  platform: TcbStatus;
  tdxModule?: TcbStatus;
  /** Advisories of the matched TDX module level, when the module has versioned levels. */
  tdxModuleAdvisoryIds?: string[];
  tcbDate: string;
  fmspc: string;
  pceId: string;
}

const CONFIGURATION = new Set<TcbStatus>([
  'ConfigurationNeeded',
  'ConfigurationAndSWHardeningNeeded',
  'OutOfDateConfigurationNeeded',
  'TDRelaunchAdvisedConfigurationNeeded',
]);
const SGX_CURRENT = new Set<TcbStatus>([
  'UpToDate',
  'SWHardeningNeeded',
  'ConfigurationNeeded',
  'ConfigurationAndSWHardeningNeeded',
]);

/**
 * Intel's TD relaunch check (TD 1.5 reports only): a TD whose platform is out of date only because the TDX
 * module it was launched on is, while the module now loaded (TEE_TCB_SVN2) meets the newest level, is told to
 * relaunch rather than judged out of date. The QE must not be out of date, revoked or unsupported.
 */
function checkRelaunch(
  info: TdxTcbInfo,
  teeTcbSvn2: readonly number[],
  level: MatchedTcbLevel,
  tdxStatus: TcbStatus,
  moduleStatus: TcbStatus | undefined,
  qeStatus: TcbStatus | undefined,
): TcbStatus {
  if (qeStatus === 'OutOfDate' || qeStatus === 'OutOfDateConfigurationNeeded') return tdxStatus;
  if (qeStatus === 'Revoked') return tdxStatus;
  if (!SGX_CURRENT.has(level.sgxStatus)) return tdxStatus;
  if (tdxStatus !== 'OutOfDate' && tdxStatus !== 'OutOfDateConfigurationNeeded') return tdxStatus;
  if (moduleStatus !== 'OutOfDate') return tdxStatus;
  const latestTdx = level.latest.tcb.tdxtcbcomponents ?? [];
  const [moduleSvn2, version2, component2] = [teeTcbSvn2[0]!, teeTcbSvn2[1]!, teeTcbSvn2[2]!];
  let requiredModuleSvn: number;
  if (version2 === 0) {
    requiredModuleSvn = latestTdx[0]?.svn ?? 0;
  } else {
    const identity = moduleIdentityFor(info, version2);
    if (!identity) {
      throw collateralError(
        'TCB_NOT_SUPPORTED',
        'the TCB info knows no TDX module of TEE_TCB_SVN2',
      );
    }
    const newest = byIsvSvn(identity.tcbLevels)[0];
    if (!newest) throw collateralError('TCB_NOT_SUPPORTED', 'the TDX module identity has no level');
    requiredModuleSvn = newest.tcb.isvsvn;
  }
  if (moduleSvn2 < requiredModuleSvn || component2 < (latestTdx[2]?.svn ?? 0)) return tdxStatus;
  return CONFIGURATION.has(level.sgxStatus) || CONFIGURATION.has(tdxStatus)
    ? 'TDRelaunchAdvisedConfigurationNeeded'
    : 'TDRelaunchAdvised';
}

/**
 * Judges the platform with a verified TCB info as Intel's verifier does: FMSPC and PCE id of the PCK leaf must
 * be the TCB info's, then the TCB level (SGX and TDX components) and the TDX module identity give the status,
 * and for a TD 1.5 report the relaunch check may turn an out-of-date module into `TDRelaunchAdvised`. The
 * advisories are the matched platform level's. `qeStatus`, when known, takes part in the relaunch check.
 *
 * @throws ParleyError `COLLATERAL_MISMATCH`, `COLLATERAL_FORMAT` or `TCB_NOT_SUPPORTED` (in `details.failure`).
 */
export function evaluatePlatformTcb(
  info: TdxTcbInfo,
  quote: TdxQuote,
  pckLeaf: X509Certificate,
  qeStatus?: TcbStatus,
): PlatformTcb {
  if (info.id !== 'TDX' || info.version < 3) {
    throw collateralError(
      'COLLATERAL_MISMATCH',
      `TCB info ${info.id} v${info.version} is not TDX v3`,
    );
  }
  const pck = parseSgxExtensions(certificateFields(pckLeaf.raw).extensions.get(SGX_EXTENSION_OID));
  if (pck.fmspc !== info.fmspc.toLowerCase() || pck.pceId !== info.pceId.toLowerCase()) {
    throw collateralError(
      'COLLATERAL_MISMATCH',
      `TCB info is for FMSPC ${info.fmspc} / PCE ${info.pceId}, the PCK certificate for ${pck.fmspc} / ${pck.pceId}`,
    );
  }
  const teeTcbSvn = [...Buffer.from(quote.body.teeTcbSvn, 'hex')];
  const level = matchTcbLevel(info, pck, teeTcbSvn);
  const tdxModule = matchTdxModule(info, quote.body);
  let { status } = convergeStatus(level, tdxModule ?? { status: 'UpToDate', advisoryIds: [] });
  if (quote.bodyType === TDX_QUOTE.bodyTypeTd15 && quote.body.teeTcbSvn2) {
    const teeTcbSvn2 = [...Buffer.from(quote.body.teeTcbSvn2, 'hex')];
    status = checkRelaunch(info, teeTcbSvn2, level, status, tdxModule?.status, qeStatus);
  }
  return {
    status,
    advisoryIds: level.advisoryIds,
    platform: level.status,
    ...(tdxModule && { tdxModule: tdxModule.status, tdxModuleAdvisoryIds: tdxModule.advisoryIds }),
    tcbDate: level.tcbDate,
    fmspc: pck.fmspc,
    pceId: pck.pceId,
  };
}
