import { collateralError } from './collateral-error';
import type { TdxTcbInfo } from './intel-collateral-schemas';
import type { StatusWithAdvisories } from './tcb-status';

const bytes = (hex: string) => Buffer.from(hex, 'hex');

/** Levels by ISVSVN, highest first, as Intel's verifier orders them whatever the JSON order. */
export function byIsvSvn<T extends { tcb: { isvsvn: number } }>(levels: readonly T[]): T[] {
  return [...levels].sort((a, b) => b.tcb.isvsvn - a.tcb.isvsvn);
}

/** The `tdxModuleIdentities` entry `TDX_<version>` (hex, two digits), if the TCB info lists one. */
export function moduleIdentityFor(tcbInfo: TdxTcbInfo, version: number) {
  const id = `TDX_${version.toString(16).padStart(2, '0').toUpperCase()}`;
  return tcbInfo.tdxModuleIdentities?.find((entry) => entry.id.toUpperCase() === id);
}

function maskedEqual(actualHex: string, expectedHex: string, maskHex: string): boolean {
  const [actual, expected, mask] = [bytes(actualHex), bytes(expectedHex), bytes(maskHex)];
  return (
    actual.length === expected.length &&
    actual.every((byte, index) => (byte & mask[index]!) === (expected[index]! & mask[index]!))
  );
}

/**
 * Checks the TDX module against the TCB info (TD 1.5 rules): TEE TCB SVN byte 1 is the module's major version
 * and byte 0 its SVN. Version 0 (TDX 1.0) is checked against `tdxModule`; a later version against the
 * `tdxModuleIdentities` entry `TDX_<version>`, whose levels give the module's own status. MRSIGNERSEAM and the
 * masked SEAM attributes must match.
 *
 * @throws ParleyError `TCB_NOT_SUPPORTED` when the module is unknown, foreign, or older than every level.
 */
export function matchTdxModule(
  tcbInfo: TdxTcbInfo,
  body: { teeTcbSvn: string; mrSignerSeam: string; seamAttributes: string },
): StatusWithAdvisories | undefined {
  const svn = bytes(body.teeTcbSvn);
  const [moduleSvn, version] = [svn[0]!, svn[1]!];
  const id = `TDX_${version.toString(16).padStart(2, '0').toUpperCase()}`;
  const versioned =
    version > 0 && tcbInfo.tdxModuleIdentities?.length
      ? moduleIdentityFor(tcbInfo, version)
      : undefined;
  const identity =
    versioned ??
    (version > 0 && tcbInfo.tdxModuleIdentities?.length ? undefined : tcbInfo.tdxModule);
  if (!identity) {
    throw collateralError('TCB_NOT_SUPPORTED', `the TCB info knows no TDX module ${id}`);
  }
  if (
    !bytes(identity.mrsigner).equals(bytes(body.mrSignerSeam)) ||
    !maskedEqual(body.seamAttributes, identity.attributes, identity.attributesMask)
  ) {
    throw collateralError(
      'TCB_NOT_SUPPORTED',
      `the TDX module is not the ${id} the TCB info names`,
    );
  }
  if (!versioned) return undefined;
  const level = byIsvSvn(versioned.tcbLevels).find(
    (candidate) => moduleSvn >= candidate.tcb.isvsvn,
  );
  if (!level) {
    throw collateralError(
      'TCB_NOT_SUPPORTED',
      `TDX module SVN ${moduleSvn} is older than every level`,
    );
  }
  return { status: level.tcbStatus, advisoryIds: level.advisoryIDs ?? [] };
}
