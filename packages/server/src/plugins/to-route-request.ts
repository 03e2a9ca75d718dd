import type { RouteRequest } from '@parley/plugin-sdk';
import type { Context } from 'hono';
import type { ParsedRouteBody } from './parse-route-body';

function queryOf(url: string): Record<string, string> {
  const query: Record<string, string> = {};
  // The last value wins when a key repeats, as the SDK documents.
  for (const [key, value] of new URL(url).searchParams) query[key] = value;
  return query;
}

/**
 * Builds the request a plugin handler sees from the hono context and the already read body. Header names are
 * lower case (the fetch `Headers` guarantees it); repeated headers are joined with `, `.
 */
export function toRouteRequest(
  c: Context,
  rawBody: Uint8Array,
  parsed: ParsedRouteBody,
): RouteRequest {
  const request: RouteRequest = {
    method: c.req.method,
    path: c.req.path,
    headers: Object.fromEntries(c.req.raw.headers),
    body: parsed.body,
    rawBody,
    params: c.req.param(),
    query: queryOf(c.req.url),
  };
  if (parsed.file) request.file = parsed.file;
  return request;
}
