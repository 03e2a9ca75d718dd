/**
 * @module @parley/tee
 * What a third party installs to check a Parley server running in a TEE.
 */
export { createTeeClient } from './tee-client';
export type { TeeClient, TeeClientOptions } from './tee-client';
export type {
  DeriveKeyAttestationData,
  RemoteAttestationMessage,
  RemoteAttestationQuote,
  TeeAgent,
} from '@parley/core';
