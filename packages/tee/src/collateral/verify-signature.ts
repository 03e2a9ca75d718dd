import { verify, type KeyObject } from 'node:crypto';

/**
 * ECDSA over SHA-256 with a certificate's key; `raw` signatures are r || s (Intel's JSON collateral and quotes),
 * others DER (X.509 CRLs). A malformed signature is a failed check, not an exception.
 */
export function verifySignature(
  key: KeyObject,
  data: Uint8Array,
  signature: Uint8Array,
  encoding: 'raw' | 'der',
): boolean {
  try {
    const dsaEncoding = encoding === 'raw' ? 'ieee-p1363' : 'der';
    return verify('sha256', data, { key, dsaEncoding }, signature);
  } catch {
    return false;
  }
}
