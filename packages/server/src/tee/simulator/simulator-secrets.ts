import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();

/** The simulator's secrets, all derived from one seed so a given salt always yields the same instance. */
export interface SimulatorSecrets {
  /** Derives `length` bytes for a labelled purpose (HKDF-SHA256 expand of the seed). */
  derive(label: string, length?: number): Uint8Array;
}

/**
 * Creates the secrets of one simulator instance. The seed is HKDF-SHA256 of the salt under a fixed,
 * simulator-only extraction salt, so restarting with the same salt gives the same keys, and different salts
 * give unrelated keys. The seed never leaves this closure.
 */
export function createSimulatorSecrets(salt: string): SimulatorSecrets {
  const seed = hkdf(
    sha256,
    encoder.encode(salt),
    encoder.encode('parley/dstack-simulator/v1'),
    encoder.encode('seed'),
    32,
  );
  return {
    derive: (label, length = 32) => hkdf(sha256, seed, undefined, encoder.encode(label), length),
  };
}
