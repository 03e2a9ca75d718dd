import { z } from 'zod';

/** `POST /GetKey` request: a key derived in the TEE from the app's root key and `path`. */
export interface GetKeyRequest {
  path: string;
  /** Recorded in the signature chain; does not change the key. */
  purpose?: string;
  /** `secp256k1` (default) or `ed25519`. */
  algorithm?: string;
}

/** `POST /GetKey` response (dstack SDK field names). */
export const getKeyResponseSchema = z.object({
  /** Hex key material. */
  key: z.string(),
  /** Hex signatures: the key by the app key, the app key by the KMS root. */
  signature_chain: z.array(z.string()),
});

/** @see getKeyResponseSchema */
export type GetKeyResponse = z.infer<typeof getKeyResponseSchema>;

/** `POST /GetQuote` response (dstack SDK field names). */
export const getQuoteResponseSchema = z.object({
  /** Hex TDX quote. */
  quote: z.string(),
  /** JSON array of `{imr, event_type, digest, event, event_payload}` whose replay gives the RTMRs. */
  event_log: z.string(),
  report_data: z.string().optional(),
  vm_config: z.string().optional(),
});

/** @see getQuoteResponseSchema */
export type GetQuoteResponse = z.infer<typeof getQuoteResponseSchema>;

/** `POST /Info` response (dstack SDK field names; `tcb_info` is a JSON string). */
export const infoResponseSchema = z.looseObject({
  app_id: z.string(),
  instance_id: z.string(),
  app_name: z.string(),
  tcb_info: z.string(),
});

/** @see infoResponseSchema */
export type InfoResponse = z.infer<typeof infoResponseSchema>;

/**
 * The dstack guest API as Parley uses it: the real agent over its socket, a simulator over HTTP, or the
 * built-in simulator in-process. Failures are ParleyErrors (`UNAVAILABLE` when the TEE cannot be reached).
 */
export interface DstackGuest {
  /** Where the guest API lives, for logs: a socket path, a URL, or `built-in simulator`. */
  readonly endpoint: string;
  getKey(request: GetKeyRequest): Promise<GetKeyResponse>;
  /** A quote whose report data is `reportData` (at most 64 bytes; dstack zero-pads it to 64). */
  getQuote(reportData: Uint8Array): Promise<GetQuoteResponse>;
  /** Describes the app and TD; also the liveness probe, hence its own optional deadline. */
  info(timeoutMs?: number): Promise<InfoResponse>;
}
