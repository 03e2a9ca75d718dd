import type { QeReport } from '../quote/tdx-quote';
import { collateralError } from './collateral-error';
import { byIsvSvn } from './match-tdx-module';
import type { QeIdentity } from './intel-collateral-schemas';
import type { StatusWithAdvisories } from './tcb-status';

function maskedEqual(actualHex: string, expectedHex: string, maskHex: string): boolean {
  const [actual, expected, mask] = [actualHex, expectedHex, maskHex].map((hex) =>
    Buffer.from(hex, 'hex'),
  );
  return (
    actual!.length === expected!.length &&
    actual!.every((byte, index) => (byte & mask![index]!) === (expected![index]! & mask![index]!))
  );
}

/**
 * Checks the QE report against Intel's QE identity (MRSIGNER, ISVPRODID, masked MISCSELECT and attributes) and
 * finds the QE's TCB level by its ISVSVN.
 *
 * @throws ParleyError `QE_IDENTITY` for another enclave, `TCB_NOT_SUPPORTED` for an SVN older than every level.
 */
export function matchQeIdentity(identity: QeIdentity, qe: QeReport): StatusWithAdvisories {
  if (
    identity.mrsigner.toLowerCase() !== qe.mrSigner ||
    identity.isvprodid !== qe.isvProdId ||
    // MISCSELECT is compared byte for byte, in report order, as Intel's verifier reads both.
    !maskedEqual(qe.miscSelect, identity.miscselect, identity.miscselectMask) ||
    !maskedEqual(qe.attributes, identity.attributes, identity.attributesMask)
  ) {
    throw collateralError('QE_IDENTITY', 'the QE report does not match the QE identity');
  }
  const level = byIsvSvn(identity.tcbLevels).find((candidate) => qe.isvSvn >= candidate.tcb.isvsvn);
  if (!level)
    throw collateralError('TCB_NOT_SUPPORTED', `QE SVN ${qe.isvSvn} is older than every level`);
  return { status: level.tcbStatus, advisoryIds: level.advisoryIDs ?? [] };
}
