import {
  type AgentMessageInput,
  type AgentSummary,
  type StoredMessage,
  agentSummarySchema,
  apiSuccessSchema,
  healthSchema,
  storedMessageSchema,
} from '@parley/core';
import { z } from 'zod';
import type { HttpConfig } from './http-config';
import { requestJson } from './request-json';

/** Options of {@link createParleyClient}. */
export interface ParleyClientOptions {
  /** The server's base address, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** Sent as `x-api-key` when the server requires `SERVER_AUTH_TOKEN`. */
  apiKey?: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof fetch;
  /** Per-request timeout in milliseconds (default 30000). For streams it bounds the wait for the headers. */
  timeout?: number;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call; it then rejects with code `ABORTED`. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call (ms). */
  timeout?: number;
}

/** The typed Parley client. */
export interface ParleyClient {
  /** `GET /api/server/health`. */
  health(options?: CallOptions): Promise<{ status: 'ok' }>;
  /** `GET /api/agents`. */
  listAgents(options?: CallOptions): Promise<AgentSummary[]>;
  /**
   * `POST /api/messaging/submit`: stores a message (usually an agent's) and broadcasts it to the channel's
   * room. Resolves with the stored message.
   */
  submit(message: AgentMessageInput, options?: CallOptions): Promise<StoredMessage>;
}

/** Builds the shared HTTP settings from the public options. */
export function toHttpConfig(options: ParleyClientOptions): HttpConfig {
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    // Bound lazily so that a fetch installed after the client was created (a test stub) is still used.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    timeout: options.timeout ?? 30_000,
  };
}

/**
 * Creates a typed client for a Parley server. Every response is validated; every failure is a
 * {@link ParleyClientError}.
 *
 * @example
 * const parley = createParleyClient({ baseUrl: 'http://localhost:3000' });
 * const agents = await parley.listAgents();
 */
export function createParleyClient(options: ParleyClientOptions): ParleyClient {
  const config = toHttpConfig(options);
  return {
    health: (call) =>
      requestJson(
        config,
        { path: '/api/server/health', ...call },
        apiSuccessSchema(healthSchema),
      ).then((body) => body.data),
    listAgents: (call) =>
      requestJson(
        config,
        { path: '/api/agents', ...call },
        apiSuccessSchema(z.array(agentSummarySchema)),
      ).then((body) => body.data),
    submit: (message, call) =>
      requestJson(
        config,
        { method: 'POST', path: '/api/messaging/submit', body: message, ...call },
        apiSuccessSchema(storedMessageSchema),
      ).then((body) => body.data),
  };
}
