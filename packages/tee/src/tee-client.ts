import { type TeeStatusResponse, teeStatusResponseSchema } from '@parley/core';

/** Options of {@link createTeeClient}. */
export interface TeeClientOptions {
  /** The Parley server's base address. */
  baseUrl: string;
  /** Sent as `x-api-key` when the server requires it. */
  apiKey?: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof fetch;
}

/** Reads a Parley server's TEE endpoints. */
export interface TeeClient {
  /** `GET /api/tee/status`. */
  status(): Promise<TeeStatusResponse>;
}

/**
 * Creates a client for a Parley server's TEE endpoints.
 *
 * @example
 * const tee = createTeeClient({ baseUrl: 'http://localhost:3000' });
 * const { tee_enabled } = await tee.status();
 */
export function createTeeClient(options: TeeClientOptions): TeeClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const headers: Record<string, string> = options.apiKey ? { 'x-api-key': options.apiKey } : {};
  return {
    async status() {
      const response = await fetchImpl(`${baseUrl}/api/tee/status`, { headers });
      if (!response.ok) throw new Error(`TEE status request failed with HTTP ${response.status}`);
      return teeStatusResponseSchema.parse(await response.json());
    },
  };
}
