import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '../bytes';

/**
 * EIP-55 mixed-case checksum of a 20-byte address given as 40 hex digits (any case, optional `0x`): each letter
 * is upper-cased when the matching nibble of keccak256(lower-case hex) is 8 or more.
 */
export function toChecksumAddress(address: string): `0x${string}` {
  const hex = address.replace(/^0x/i, '').toLowerCase();
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(hex)));
  let checksummed = '';
  for (let index = 0; index < hex.length; index += 1) {
    const character = hex[index]!;
    checksummed += parseInt(hash[index]!, 16) >= 8 ? character.toUpperCase() : character;
  }
  return `0x${checksummed}`;
}
