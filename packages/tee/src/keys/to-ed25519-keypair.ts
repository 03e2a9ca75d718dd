import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { DeriveKeyResponse } from './derive-key-response';
import { keyMaterialOf } from './key-material';

/** An Ed25519 keypair (the form Solana and most signing libraries take). */
export interface Ed25519Keypair {
  /** The 32-byte seed (RFC 8032 private key). */
  secretKey: Uint8Array;
  /** The 32-byte public key. */
  publicKey: Uint8Array;
}

/**
 * Turns a derive-key response into an Ed25519 keypair. The seed is sha256 of the FULL key material, never a
 * truncated slice.
 *
 * @example
 * const { publicKey } = toEd25519Keypair(await dstack.getKey('wallet/solana'));
 */
export function toEd25519Keypair(response: DeriveKeyResponse): Ed25519Keypair {
  const secretKey = sha256(keyMaterialOf(response));
  return { secretKey, publicKey: ed25519.getPublicKey(secretKey) };
}
