import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ParleyError } from '@parley/core';
import { bytesToHex } from '../bytes';
import type { DeriveKeyResponse } from './derive-key-response';
import { toChecksumAddress } from './checksum-address';
import { keyMaterialOf } from './key-material';

/** An Ethereum-style secp256k1 account. */
export interface EcdsaAccount {
  /** 32-byte private key, `0x` hex. */
  privateKey: `0x${string}`;
  /** Uncompressed public key (65 bytes, `0x04…`), `0x` hex. */
  publicKey: `0x${string}`;
  /** EIP-55 checksummed address. */
  address: `0x${string}`;
}

/**
 * Turns a derive-key response into a secp256k1 account. The private key is keccak256 of the FULL key material
 * (never a truncated slice, which would throw away entropy), so any length of material gives a uniform key.
 *
 * @example
 * const { address } = toEcdsaAccount(await dstack.getKey('wallet/eth'));
 */
export function toEcdsaAccount(response: DeriveKeyResponse): EcdsaAccount {
  const privateKey = keccak_256(keyMaterialOf(response));
  // A hash at or above the curve order has probability ~2^-128; refuse it rather than reduce and bias.
  if (!secp256k1.utils.isValidSecretKey(privateKey)) {
    throw new ParleyError('INTERNAL', 'Derived key is not a valid secp256k1 private key');
  }
  const publicKey = secp256k1.getPublicKey(privateKey, false);
  const address = bytesToHex(keccak_256(publicKey.subarray(1)).subarray(12));
  return {
    privateKey: `0x${bytesToHex(privateKey)}`,
    publicKey: `0x${bytesToHex(publicKey)}`,
    address: toChecksumAddress(address),
  };
}
