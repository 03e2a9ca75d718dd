import type * as asn1js from 'asn1js';
import { bytesEqual } from '../bytes';
import { collateralError } from './collateral-error';
import {
  childrenOf,
  contentOf,
  decodeDer,
  type DerElement,
  encodingOf,
  integerHex,
  isContextTag,
  oidOf,
  timeOf,
} from './der';
import { assertStrictDer } from './strict-der';

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

/** ecdsa-with-SHA256, the only algorithm Intel signs CRLs with and the one the signature is checked with. */
const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const TAG = { integer: 2, bitString: 3, sequence: 16 } as const;

/** Whether an element has the universal tag `tag` (asn1js numbers the universal class 1), in its DER form. */
function isUniversal(element: DerElement | undefined, tag: number): boolean {
  return (
    element?.idBlock.tagClass === 1 &&
    element.idBlock.tagNumber === tag &&
    element.idBlock.isConstructed === (tag === TAG.sequence)
  );
}

/** A BIT STRING with no unused bits, as a signature is. */
function isWholeBitString(element: DerElement | undefined): boolean {
  return (
    isUniversal(element, TAG.bitString) && (element as asn1js.BitString).valueBlock.unusedBits === 0
  );
}

/** An AlgorithmIdentifier that is ecdsa-with-SHA256 with no parameters (RFC 5758). */
function isEcdsaWithSha256(element: DerElement | undefined): boolean {
  const parts = childrenOf(element);
  return (
    isUniversal(element, TAG.sequence) &&
    parts.length === 1 &&
    oidOf(parts[0]) === ECDSA_WITH_SHA256
  );
}

/** Revoked serials of `revokedCertificates`: a SEQUENCE OF SEQUENCE { INTEGER, Time, extensions? }. */
function revokedSerialsOf(list: DerElement | undefined, what: string): Set<string> {
  const serials = new Set<string>();
  if (list === undefined) return serials;
  for (const entry of childrenOf(list)) {
    const [serial, date] = childrenOf(entry);
    if (!isUniversal(entry, TAG.sequence) || !isUniversal(serial, TAG.integer) || !timeOf(date)) {
      throw collateralError('COLLATERAL_FORMAT', `${what} has a malformed revoked entry`);
    }
    serials.add(integerHex(serial));
  }
  return serials;
}

/** TBSCertList fields by name; undefined when they are not in RFC 5280's order and shape. */
function tbsFields(tbs: DerElement) {
  const fields = childrenOf(tbs);
  // `version` is an optional INTEGER (v2 = 1); without it the signature algorithm comes first.
  const versioned = isUniversal(fields[0], TAG.integer);
  if (versioned && integerHex(fields[0]) !== '01') return undefined;
  const [algorithm, issuer, thisUpdate, nextUpdate, ...rest] = versioned ? fields.slice(1) : fields;
  const [revoked, extensions, ...extra] = isUniversal(rest[0], TAG.sequence)
    ? rest
    : [undefined, ...rest];
  if (extra.length > 0 || (extensions !== undefined && !isContextTag(extensions, 0)))
    return undefined;
  if (!isUniversal(issuer, TAG.sequence)) return undefined;
  return {
    algorithm,
    issuer,
    thisUpdate: timeOf(thisUpdate),
    nextUpdate: timeOf(nextUpdate),
    revoked,
  };
}

/**
 * Reads a DER X.509 CRL (RFC 5280 CertificateList) strictly: one DER encoding only (minimal lengths, nothing
 * after it), exactly tbsCertList, signatureAlgorithm and signatureValue, the outer signatureAlgorithm equal
 * byte for byte to the signed one and ecdsa-with-SHA256, a signature BIT STRING without unused bits, and the
 * TBSCertList fields in order. Every unsigned byte is thereby pinned: a CRL differing from a genuine one
 * fails here or at its signature.
 *
 * @throws ParleyError `COLLATERAL_FORMAT` when it is not such a CRL with both update times.
 */
export function parseCrl(der: Uint8Array, what: string): Crl {
  assertStrictDer(der, what);
  const list = decodeDer(der, what);
  const parts = childrenOf(list);
  const [tbs, algorithm, signature] = parts;
  const fields = tbs && isUniversal(tbs, TAG.sequence) ? tbsFields(tbs) : undefined;
  if (!isUniversal(list, TAG.sequence) || parts.length !== 3 || !fields) {
    throw collateralError('COLLATERAL_FORMAT', `${what} is not a CertificateList`);
  }
  if (
    !isEcdsaWithSha256(algorithm) ||
    !bytesEqual(encodingOf(algorithm!), encodingOf(fields.algorithm!))
  ) {
    throw collateralError(
      'COLLATERAL_FORMAT',
      `${what}'s signature algorithm is not the signed ecdsa-with-SHA256`,
    );
  }
  if (!isWholeBitString(signature)) {
    throw collateralError('COLLATERAL_FORMAT', `${what}'s signature is not a whole BIT STRING`);
  }
  if (!fields.thisUpdate || !fields.nextUpdate) {
    throw collateralError('COLLATERAL_FORMAT', `${what} is not a CRL with update times`);
  }
  return {
    issuer: encodingOf(fields.issuer!),
    thisUpdate: fields.thisUpdate,
    nextUpdate: fields.nextUpdate,
    revokedSerials: revokedSerialsOf(fields.revoked, what),
    signedBytes: encodingOf(tbs!),
    signature: contentOf(signature),
  };
}
