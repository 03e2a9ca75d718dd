import { collateralError } from './collateral-error';
import type { TdxTcbInfo } from './intel-collateral-schemas';
import type { SgxExtensions } from './sgx-extensions';
import type { TcbStatus } from './tcb-evaluation';
import type { StatusWithAdvisories } from './tcb-status';

type TcbLevel = TdxTcbInfo['tcbLevels'][number];

/** The platform's TCB level, and what Intel's relaunch check needs beside it. */
export interface MatchedTcbLevel extends StatusWithAdvisories {
  tcbDate: string;
  /** Status of the first level the SGX components and PCE SVN meet (Intel's "SGX TCB level"). */
  sgxStatus: TcbStatus;
  /** The newest level of the TCB info, in Intel's order. */
  latest: TcbLevel;
}

const atLeast = (actual: readonly number[], required: readonly { svn: number }[], from = 0) =>
  required.every(({ svn }, index) => index < from || (actual[index] ?? 0) >= svn);

/** Lexicographic comparison of two SVN lists, higher first. */
function compareSvns(a: readonly { svn: number }[] = [], b: readonly { svn: number }[] = []) {
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const difference = (b[index]?.svn ?? 0) - (a[index]?.svn ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * TCB levels in the order Intel's verifier walks them, whatever order the JSON lists them in: SGX components
 * (lexicographically, highest first), then PCE SVN, then TDX components.
 */
export function sortTcbLevels(levels: readonly TcbLevel[]): TcbLevel[] {
  return [...levels].sort(
    (a, b) =>
      compareSvns(a.tcb.sgxtcbcomponents, b.tcb.sgxtcbcomponents) ||
      b.tcb.pcesvn - a.tcb.pcesvn ||
      compareSvns(a.tcb.tdxtcbcomponents, b.tcb.tdxtcbcomponents),
  );
}

/** Whether the TD's TEE TCB SVN meets a level's TDX components (bytes 0-1 left out from TDX 1.5 on). */
export function meetsTdxComponents(teeTcbSvn: readonly number[], level: TcbLevel): boolean {
  const from = (teeTcbSvn[1] ?? 0) > 0 ? 2 : 0;
  return (
    level.tcb.tdxtcbcomponents !== undefined && atLeast(teeTcbSvn, level.tcb.tdxtcbcomponents, from)
  );
}

/**
 * Matches the platform against the TCB info's levels as Intel's verifier does: levels sorted newest first
 * ({@link sortTcbLevels}); the SGX components and PCE SVN come from the PCK certificate, the TDX components from
 * the TD report's TEE TCB SVN. The first level the platform meets in every component is its level; its
 * advisories are the platform's. From TDX 1.5 on (TEE TCB SVN byte 1, the module's major version, above 0)
 * bytes 0 and 1 are left out: the TDX module identity judges them.
 *
 * @throws ParleyError `TCB_NOT_SUPPORTED` when no level matches (the platform is older than every listed level).
 */
export function matchTcbLevel(
  tcbInfo: TdxTcbInfo,
  pck: SgxExtensions,
  teeTcbSvn: readonly number[],
): MatchedTcbLevel {
  const levels = sortTcbLevels(tcbInfo.tcbLevels);
  let sgxStatus: TcbStatus | undefined;
  for (const level of levels) {
    const { sgxtcbcomponents, pcesvn } = level.tcb;
    if (pck.pceSvn < pcesvn || !atLeast(pck.sgxTcbComponents, sgxtcbcomponents)) continue;
    sgxStatus ??= level.tcbStatus;
    if (!meetsTdxComponents(teeTcbSvn, level)) continue;
    return {
      status: level.tcbStatus,
      advisoryIds: level.advisoryIDs ?? [],
      tcbDate: level.tcbDate,
      sgxStatus,
      latest: levels[0]!,
    };
  }
  throw collateralError('TCB_NOT_SUPPORTED', 'no TCB level of the TCB info matches the platform');
}
