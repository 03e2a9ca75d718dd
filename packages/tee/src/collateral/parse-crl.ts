import {
  childrenOf,
  contentOf,
  decodeDer,
  encodingOf,
  integerHex,
  isContextTag,
  timeOf,
} from './der';
import { collateralError } from './collateral-error';

/** A certificate revocation list, read but not yet verified. */
export interface Crl {
  /** DER of the issuer Name. */
  issuer: Uint8Array;
  thisUpdate: Date;
  nextUpdate: Date;
  /** Revoked serial numbers, lower-case hex without leading zeros. */
  revokedSerials: Set<string>;
  /** The signed TBSCertList bytes and the DER ECDSA signature over them. */
  signedBytes: Uint8Array;
  signature: Uint8Array;
}

/**
 * Reads a DER X.509 CRL (RFC 5280 CertificateList). asn1js decodes; this only walks the fixed structure.
 *
 * @throws ParleyError `COLLATERAL_FORMAT` when it is not a CRL with both update times.
 */
export function parseCrl(der: Uint8Array, what: string): Crl {
  const [tbs, , signature] = childrenOf(decodeDer(der, what));
  const fields = childrenOf(tbs);
  // `version` is an optional INTEGER; without it the signature algorithm comes first.
  const rest = fields[0]?.idBlock.tagNumber === 2 ? fields.slice(1) : fields;
  const [, issuer, thisUpdate, maybeNext, ...tail] = rest;
  const nextUpdate = timeOf(maybeNext);
  const start = timeOf(thisUpdate);
  if (!tbs || !issuer || !signature || !start || !nextUpdate) {
    throw collateralError('COLLATERAL_FORMAT', `${what} is not a CRL with update times`);
  }
  const revoked = tail.find((field) => !isContextTag(field, 0));
  return {
    issuer: encodingOf(issuer),
    thisUpdate: start,
    nextUpdate,
    revokedSerials: new Set(childrenOf(revoked).map((entry) => integerHex(childrenOf(entry)[0]))),
    signedBytes: encodingOf(tbs),
    signature: contentOf(signature),
  };
}
