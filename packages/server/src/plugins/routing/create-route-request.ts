import type { IncomingMessage } from 'node:http';
import type { AgentRuntime } from '@parley/plugin-sdk';
import type { Context } from 'hono';
import type { ParsedRouteBody } from '../body/parse-route-body';
import { PluginRouteRequest } from '../express-compat/plugin-route-request';

function queryOf(searchParams: URLSearchParams): Record<string, string> {
  const query: Record<string, string> = {};
  // The last value wins when a key repeats, as the SDK documents.
  for (const [key, value] of searchParams) query[key] = value;
  return query;
}

/** The client address from the node server's incoming message; undefined outside a node server (tests). */
function clientAddressOf(c: Context): string | undefined {
  const env = c.env as { incoming?: IncomingMessage } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/**
 * Builds the request a plugin handler sees from the hono context and the already read body. Header names are
 * lower case (the fetch `Headers` guarantees it); repeated headers are joined with `, `.
 */
export function createRouteRequest(
  c: Context,
  rawBody: Uint8Array,
  parsed: ParsedRouteBody,
  runtime: AgentRuntime,
): PluginRouteRequest {
  const url = new URL(c.req.url);
  return new PluginRouteRequest({
    method: c.req.method,
    url: `${url.pathname}${url.search}`,
    path: c.req.path,
    headers: Object.fromEntries(c.req.raw.headers),
    body: parsed.body,
    rawBody,
    params: c.req.param(),
    query: queryOf(url.searchParams),
    file: parsed.files?.[0],
    files: parsed.files,
    ip: clientAddressOf(c),
    runtime,
  });
}
