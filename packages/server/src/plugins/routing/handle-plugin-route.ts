import type { Context } from 'hono';
import type { AppEnv } from '../../http/app-env';
import { createRouteRequest } from './create-route-request';
import { mediaTypeOf, parseRouteBody } from '../body/parse-route-body';
import type { PluginRouteEntry } from '../plugin-route-table';
import { readBodyBytes } from '../body/read-body-bytes';
import { runRouteHandler } from './run-route-handler';

/** Limits applied to one plugin route request. */
export interface PluginRouteLimits {
  bodyLimit: number;
  uploadLimit: number;
  routeTimeoutMs: number;
}

/**
 * Serves one request with a handler route: reads the body within its limit, parses it, then runs the handler.
 * The limit is the route's own `bodyLimit`, else the upload limit for a multipart body (routes that parse their
 * own uploads need not declare `isMultipart`), else the body limit. Body problems (413, 400) are thrown as
 * ParleyErrors before the handler is called.
 */
export async function handlePluginRoute(
  c: Context<AppEnv>,
  entry: PluginRouteEntry,
  limits: PluginRouteLimits,
): Promise<Response> {
  const { route } = entry;
  const contentType = c.req.header('content-type');
  const isUpload = mediaTypeOf(contentType) === 'multipart/form-data';
  const limit = route.bodyLimit ?? (isUpload ? limits.uploadLimit : limits.bodyLimit);
  const rawBody = await readBodyBytes(c.req.raw, limit, isUpload ? 'Upload' : 'Request body');
  const parsed = await parseRouteBody(rawBody, contentType, route.isMultipart === true);
  const logger = c.get('logger').child({
    plugin: entry.pluginName,
    route: route.name ?? `${route.type} ${route.path}`,
    agentId: entry.agent.agentId,
  });
  return runRouteHandler({
    handler: (request, response, runtime) => route.handler!(request, response, runtime),
    request: createRouteRequest(c, rawBody, parsed, entry.runtime ?? entry.agent),
    runtime: entry.runtime ?? entry.agent,
    timeoutMs: route.timeoutMs ?? limits.routeTimeoutMs,
    logger,
  });
}
