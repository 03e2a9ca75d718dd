/**
 * A dstack `GetKey` response (the key material derived in the TEE). The wire form carries hex strings; the
 * dstack SDK hands out bytes; both are accepted.
 */
export interface DeriveKeyResponse {
  /** The derived key material: hex (with or without `0x`) or bytes. */
  key: string | Uint8Array;
  /** Signatures tying the key to the app and the KMS root; not needed to use the key. */
  signature_chain?: readonly (string | Uint8Array)[];
}
