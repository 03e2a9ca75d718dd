import { API_KEY_HEADER } from '@parley/core';
import type { AgentRuntime } from '../plugin/runtime';

/** Request options of {@link fetchRoute}. */
export interface FetchRouteInit extends RequestInit {
  /**
   * Whether to send the server's `SERVER_AUTH_TOKEN` as `x-api-key` when the request sets no `x-api-key` itself
   * (default true), so that non-public routes answer on a server that requires the key.
   */
  serverAuth?: boolean;
}

/**
 * Calls a route of the running server as served by this runtime's agent: `SERVER_URL` + `path`, with
 * `?agentId=` set to the runtime's agent. Meant for a plugin's `tests`, which run against a live server.
 *
 * @example
 * const response = await fetchRoute(runtime, '/webhook', {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ event: 'ping', data: {} }),
 * });
 * if (response.status !== 200) throw new Error(`expected 200, got ${response.status}`);
 */
export function fetchRoute(
  runtime: AgentRuntime,
  path: string,
  init: FetchRouteInit = {},
): Promise<Response> {
  const { serverAuth = true, ...request } = init;
  const base = runtime.getSetting('SERVER_URL') ?? 'http://localhost:3000';
  const url = new URL(`${base.replace(/\/+$/, '')}${path}`);
  url.searchParams.set('agentId', runtime.agentId);
  const headers = new Headers(request.headers);
  const token = runtime.getSetting('SERVER_AUTH_TOKEN');
  if (serverAuth && token && !headers.has(API_KEY_HEADER)) headers.set(API_KEY_HEADER, token);
  return fetch(url, { ...request, headers });
}
