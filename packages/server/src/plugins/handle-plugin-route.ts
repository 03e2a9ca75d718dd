import type { Context } from 'hono';
import type { AppEnv } from '../http/app-env';
import { mediaTypeOf, parseRouteBody } from './parse-route-body';
import type { PluginRouteEntry } from './plugin-route-table';
import { readBodyBytes } from './read-body-bytes';
import { runRouteHandler } from './run-route-handler';
import { toRouteRequest } from './to-route-request';

/** Limits applied to one plugin route request. */
export interface PluginRouteLimits {
  bodyLimit: number;
  uploadLimit: number;
  routeTimeoutMs: number;
}

/**
 * Serves one request with a handler route: reads the body within its limit, parses it, then runs the handler.
 * Body problems (413, 400) are thrown as ParleyErrors before the handler is called.
 */
export async function handlePluginRoute(
  c: Context<AppEnv>,
  entry: PluginRouteEntry,
  limits: PluginRouteLimits,
): Promise<Response> {
  const { route } = entry;
  const contentType = c.req.header('content-type');
  const isUpload = route.isMultipart === true && mediaTypeOf(contentType) === 'multipart/form-data';
  const rawBody = isUpload
    ? await readBodyBytes(c.req.raw, limits.uploadLimit, 'Upload')
    : await readBodyBytes(c.req.raw, limits.bodyLimit);
  const parsed = await parseRouteBody(rawBody, contentType, route.isMultipart === true);
  const logger = c.get('logger').child({
    plugin: entry.pluginName,
    route: route.name ?? `${route.type} ${route.path}`,
    agentId: entry.agent.agentId,
  });
  return runRouteHandler({
    handler: route.handler!,
    request: toRouteRequest(c, rawBody, parsed),
    runtime: entry.agent,
    timeoutMs: route.timeoutMs ?? limits.routeTimeoutMs,
    logger,
  });
}
