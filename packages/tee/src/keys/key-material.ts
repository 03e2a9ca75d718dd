import { ParleyError } from '@parley/core';
import { hexToBytes } from '../bytes';
import type { DeriveKeyResponse } from './derive-key-response';

/** The full key material of a derive-key response, as bytes. Empty material is an error, never a weak key. */
export function keyMaterialOf(response: DeriveKeyResponse): Uint8Array {
  const material =
    typeof response.key === 'string' ? hexToBytes(response.key, 'derived key') : response.key;
  if (material.length < 16) {
    throw new ParleyError('BAD_REQUEST', 'Derived key material is shorter than 16 bytes');
  }
  return material;
}
