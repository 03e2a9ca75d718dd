import { collateralError } from './collateral-error';
import type { TdxTcbInfo } from './intel-collateral-schemas';
import type { SgxExtensions } from './sgx-extensions';
import type { StatusWithAdvisories } from './tcb-status';

/** The platform's TCB level: the first of Intel's levels (newest first) that the platform meets. */
export interface MatchedTcbLevel extends StatusWithAdvisories {
  tcbDate: string;
}

const atLeast = (actual: readonly number[], required: readonly { svn: number }[], from = 0) =>
  required.every(({ svn }, index) => index < from || (actual[index] ?? 0) >= svn);

/**
 * Matches the platform against the TCB info's levels: the SGX components and PCE SVN from the PCK certificate,
 * and the TDX components against the TD report's TEE TCB SVN. Intel lists levels newest first, so the first
 * level the platform meets in every component is its level. From TDX 1.5 on (TEE TCB SVN byte 1, the module's
 * major version, above 0) bytes 0 and 1 are left out, as Intel's verifier does: the TDX module identity judges
 * them.
 *
 * @throws ParleyError `TCB_NOT_SUPPORTED` when no level matches (the platform is older than every listed level).
 */
export function matchTcbLevel(
  tcbInfo: TdxTcbInfo,
  pck: SgxExtensions,
  teeTcbSvn: readonly number[],
): MatchedTcbLevel {
  for (const level of tcbInfo.tcbLevels) {
    const { sgxtcbcomponents, pcesvn, tdxtcbcomponents } = level.tcb;
    if (pck.pceSvn < pcesvn || !atLeast(pck.sgxTcbComponents, sgxtcbcomponents)) continue;
    const from = (teeTcbSvn[1] ?? 0) > 0 ? 2 : 0;
    if (!tdxtcbcomponents || !atLeast(teeTcbSvn, tdxtcbcomponents, from)) continue;
    return {
      status: level.tcbStatus,
      advisoryIds: level.advisoryIDs ?? [],
      tcbDate: level.tcbDate,
    };
  }
  throw collateralError('TCB_NOT_SUPPORTED', 'no TCB level of the TCB info matches the platform');
}
