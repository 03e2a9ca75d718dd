import { ParleyError } from '@parley/core';

/** Hex (with or without `0x`) to bytes; anything else is a BAD_REQUEST naming `what`. */
export function hexToBytes(hex: string, what = 'hex value'): Uint8Array {
  const digits = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) {
    throw new ParleyError('BAD_REQUEST', `${what} is not valid hex`);
  }
  return new Uint8Array(Buffer.from(digits, 'hex'));
}

/** Bytes to lowercase hex without a prefix. */
export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Standard base64 (the encoding SPEC.md uses for quotes) to bytes; rejects anything that is not base64. */
export function base64ToBytes(base64: string, what = 'base64 value'): Uint8Array {
  const compact = base64.replace(/\s+/g, '');
  // Buffer.from silently skips junk characters, so check the alphabet first to fail loudly on a bad input.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new ParleyError('BAD_REQUEST', `${what} is not valid base64`);
  }
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

/** Bytes to standard base64. */
export function bytesToBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Compares two byte strings in time that depends only on their lengths. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}
