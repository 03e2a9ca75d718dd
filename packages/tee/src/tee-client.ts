import {
  type TeeAgentsResponse,
  type TeeStatusResponse,
  teeAgentsResponseSchema,
  teeStatusResponseSchema,
} from '@parley/core';

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
  /**
   * `GET /api/tee/agents`, with `?nonce=` when given (at most 128 characters). Verify the answer with
   * `verifyAgentsAttestation(response, { nonce })`.
   */
  agents(nonce?: string): Promise<TeeAgentsResponse>;
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
  async function get(path: string, what: string): Promise<unknown> {
    const response = await fetchImpl(`${baseUrl}${path}`, { headers });
    if (!response.ok) throw new Error(`TEE ${what} request failed with HTTP ${response.status}`);
    return response.json();
  }
  return {
    async status() {
      return teeStatusResponseSchema.parse(await get('/api/tee/status', 'status'));
    },
    async agents(nonce) {
      const query = nonce ? `?nonce=${encodeURIComponent(nonce)}` : '';
      return teeAgentsResponseSchema.parse(await get(`/api/tee/agents${query}`, 'agents'));
    },
  };
}
