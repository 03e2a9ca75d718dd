import { createHash, createPrivateKey, sign as nodeSign, type KeyObject } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { type Receipt, type ReceiptBody } from '@parley/core';
import { bytesToHex, hexToBytes } from '../bytes';
import { attestationDigest } from '../attestation/attestation-digest';
import { canonicalJson } from '../attestation/canonical-json';

/** Domain tag of a receipt's digest: a receipt digest can never pass for an attestation digest. */
export const RECEIPT_DOMAIN = 'parley/receipt/v1';

/** SHA-256 of `"parley/receipt/v1" || 0x00 || JCS(body)`, hex: what the agent signs and the next receipt's `prev`. */
export function receiptDigest(body: ReceiptBody): string {
  return bytesToHex(attestationDigest(RECEIPT_DOMAIN, body));
}

/** SHA-256 of a text's UTF-8 bytes, hex: a reply's or a user message's `content` digest (`sha256sum` agrees). */
export function textDigest(text: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(text)));
}

/** SHA-256 of a JSON value's JCS encoding, hex: a tool call's `input` and `result` digests. */
export function jsonDigest(value: unknown): string {
  return bytesToHex(sha256(new TextEncoder().encode(canonicalJson(value ?? null))));
}

/**
 * Signs a receipt body with an agent's secp256k1 private key (32 bytes, hex or bytes): ECDSA over the body's
 * digest (no second hash), low-S, compact `r || s`.
 *
 * @example
 * const receipt = signReceipt(body, account.privateKey);
 */
export function signReceipt(body: ReceiptBody, privateKey: string | Uint8Array): Receipt {
  const secret =
    typeof privateKey === 'string' ? hexToBytes(privateKey, 'private key') : privateKey;
  const hash = receiptDigest(body);
  const signature = secp256k1.sign(hexToBytes(hash), secret, { prehash: false, lowS: true });
  return { body, hash, signature: bytesToHex(signature) };
}

/** Whether `signature` (compact hex) is `publicKey`'s low-S ECDSA signature of `hash`. Never throws. */
export function receiptSignatureValid(hash: string, signature: string, publicKey: string): boolean {
  try {
    return secp256k1.verify(hexToBytes(signature), hexToBytes(hash), hexToBytes(publicKey), {
      prehash: false,
      lowS: true,
    });
  } catch {
    return false;
  }
}

/** The secp256k1 group order: a signature's `s` above half of it is replaced by `n - s` (low-S). */
const CURVE_ORDER = secp256k1.Point.CURVE().n;

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/**
 * A fast signer for a server that signs many receipts with one key: the same signature as {@link signReceipt}
 * (ECDSA secp256k1 over the SHA-256 receipt digest, low-S, compact), made by Node's OpenSSL instead of JavaScript.
 * The private key is held in a `KeyObject` inside the returned function.
 *
 * @example
 * const sign = createReceiptSigner(account.privateKey);
 * const receipt = sign(body);
 */
export function createReceiptSigner(
  privateKey: string | Uint8Array,
): (body: ReceiptBody) => Receipt {
  const secret =
    typeof privateKey === 'string' ? hexToBytes(privateKey, 'private key') : privateKey;
  const publicKey = secp256k1.getPublicKey(secret, false);
  const key: KeyObject = createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'secp256k1',
      d: base64url(secret),
      x: base64url(publicKey.subarray(1, 33)),
      y: base64url(publicKey.subarray(33, 65)),
    },
  });
  const tag = Buffer.from(`${RECEIPT_DOMAIN}\0`, 'utf8');
  return (body) => {
    // ECDSA with SHA-256 over the tagged message signs exactly its SHA-256: the receipt digest.
    const message = Buffer.concat([tag, Buffer.from(canonicalJson(body), 'utf8')]);
    const hash = createHash('sha256').update(message).digest('hex');
    const raw = nodeSign('sha256', message, { key, dsaEncoding: 'ieee-p1363' });
    const s = BigInt(`0x${raw.subarray(32).toString('hex')}`);
    const low = s > CURVE_ORDER / 2n ? CURVE_ORDER - s : s;
    const signature = `${raw.subarray(0, 32).toString('hex')}${low.toString(16).padStart(64, '0')}`;
    return { body, hash, signature };
  };
}
