import { createPublicKey, verify } from 'node:crypto';

/**
 * ECDSA P-256 over SHA-256 with a raw (x || y) key and an r || s signature, as TDX quotes carry them. OpenSSL
 * accepts high-S signatures, which Intel's quoting enclave emits. A malformed key or signature is `false`.
 */
export function verifyRawP256(
  signature: Uint8Array,
  message: Uint8Array,
  rawKey: Uint8Array,
): boolean {
  try {
    const coordinate = (start: number) =>
      Buffer.from(rawKey.subarray(start, start + 32)).toString('base64url');
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: coordinate(0), y: coordinate(32) },
      format: 'jwk',
    });
    return verify('sha256', message, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}
