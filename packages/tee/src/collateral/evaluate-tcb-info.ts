import type { X509Certificate } from 'node:crypto';
import type { TdxQuote } from '../quote/tdx-quote';
import { certificateFields } from './certificate-fields';
import { collateralError } from './collateral-error';
import type { TdxTcbInfo } from './intel-collateral-schemas';
import { matchTcbLevel } from './match-tcb-level';
import { matchTdxModule } from './match-tdx-module';
import { parseSgxExtensions, SGX_EXTENSION_OID } from './sgx-extensions';
import type { TcbStatus } from './tcb-evaluation';
import { convergeStatus, type StatusWithAdvisories } from './tcb-status';

/** The platform's part of a TCB evaluation: TCB level and TDX module. */
export interface PlatformTcb extends StatusWithAdvisories {
  platform: TcbStatus;
  tdxModule?: TcbStatus;
  tcbDate: string;
  fmspc: string;
  pceId: string;
}

/**
 * Judges the platform with a verified TCB info: FMSPC and PCE id of the PCK leaf must be the TCB info's, then
 * the TCB level (SGX and TDX components) and the TDX module identity give the status.
 *
 * @throws ParleyError `COLLATERAL_MISMATCH`, `COLLATERAL_FORMAT` or `TCB_NOT_SUPPORTED` (in `details.failure`).
 */
export function evaluatePlatformTcb(
  info: TdxTcbInfo,
  quote: TdxQuote,
  pckLeaf: X509Certificate,
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
  const converged = convergeStatus(level, tdxModule ?? { status: 'UpToDate', advisoryIds: [] });
  return {
    ...converged,
    platform: level.status,
    ...(tdxModule && { tdxModule: tdxModule.status }),
    tcbDate: level.tcbDate,
    fmspc: pck.fmspc,
    pceId: pck.pceId,
  };
}
