import {
  type AgentSummary,
  agentSummarySchema,
  apiErrorBodySchema,
  healthSchema,
} from '@parley/core';
import { z } from 'zod';
import { ParleyClientError } from './client-error';

const successEnvelopeSchema = z.object({ success: z.literal(true), data: z.unknown() });

/** Options of {@link createParleyClient}. */
export interface ParleyClientOptions {
  /** The server's base address, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** Sent as `x-api-key` when the server requires `SERVER_AUTH_TOKEN`. */
  apiKey?: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof fetch;
  /** Per-request timeout in milliseconds (default 30000). */
  timeout?: number;
}

/** The typed Parley client. */
export interface ParleyClient {
  /** `GET /api/server/health`. */
  health(): Promise<z.infer<typeof healthSchema>>;
  /** `GET /api/agents`. */
  listAgents(): Promise<AgentSummary[]>;
}

/**
 * Creates a typed client for a Parley server.
 *
 * @example
 * const parley = createParleyClient({ baseUrl: 'http://localhost:3000' });
 * const agents = await parley.listAgents();
 */
export function createParleyClient(options: ParleyClientOptions): ParleyClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeout = options.timeout ?? 30_000;

  async function getData<T extends z.ZodType>(path: string, schema: T): Promise<z.output<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    let response: Response;
    try {
      response = await fetchImpl(`${baseUrl}${path}`, {
        headers,
        signal: AbortSignal.timeout(timeout),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      throw new ParleyClientError(
        0,
        timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
        timedOut ? `Request timed out after ${timeout} ms` : 'Network error',
        { cause: error },
      );
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const parsed = apiErrorBodySchema.safeParse(body);
      throw parsed.success
        ? new ParleyClientError(
            response.status,
            parsed.data.error.code,
            parsed.data.error.message,
            {
              details: parsed.data.error.details,
            },
          )
        : new ParleyClientError(response.status, 'HTTP_ERROR', `HTTP ${response.status}`);
    }
    const envelope = successEnvelopeSchema.safeParse(body);
    const parsed = envelope.success ? schema.safeParse(envelope.data.data) : envelope;
    if (!parsed.success) {
      throw new ParleyClientError(
        response.status,
        'INVALID_RESPONSE',
        'Response did not match its schema',
        {
          details: parsed.error.issues,
          retryable: false,
        },
      );
    }
    return parsed.data;
  }

  return {
    health: () => getData('/api/server/health', healthSchema),
    listAgents: () => getData('/api/agents', z.array(agentSummarySchema)),
  };
}
