import { API_KEY_HEADER, ParleyError } from '@parley/core';
import { safeEqual } from '@parley/plugin-sdk';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/app-env';
import { handleError } from '../http/error-handler';
import { handlePluginRoute } from './routing/handle-plugin-route';
import type { PluginRouteEntry, PluginRouteTable } from './plugin-route-table';
import { routeMountsOf, type MountMethod } from './routing/route-mounts';
import { selectRouteEntry } from './routing/select-route-entry';
import { serveStatic } from './static/serve-static';

/** Options of {@link pluginRoutes}. Every limit has a default. */
export interface PluginRoutesOptions {
  /** When set, non-public routes require `x-api-key` equal to it. */
  authToken?: string;
  /** Largest JSON, text or form body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Largest multipart upload in bytes (default 10 MiB). */
  uploadLimit?: number;
  /** Handler timeout when a route sets no `timeoutMs` (default 30000 ms). */
  routeTimeoutMs?: number;
}

interface MountGroup {
  method: MountMethod;
  path: string;
  /** Every agent's entry for this method and path, in agent order. */
  entries: PluginRouteEntry[];
}

const MEBIBYTE = 1024 * 1024;

function groupMounts(entries: readonly PluginRouteEntry[]): MountGroup[] {
  const groups = new Map<string, MountGroup>();
  for (const entry of entries) {
    for (const { method, path } of routeMountsOf(entry)) {
      const key = `${method} ${path}`;
      const group = groups.get(key) ?? { method, path, entries: [] };
      group.entries.push(entry);
      groups.set(key, group);
    }
  }
  // Folder wildcards go last so that they never shadow a more specific plugin route.
  const all = [...groups.values()];
  return [...all.filter((g) => !g.path.endsWith('*')), ...all.filter((g) => g.path.endsWith('*'))];
}

function unauthorized(): ParleyError {
  return new ParleyError('UNAUTHORIZED', 'Missing or invalid x-api-key header');
}

/**
 * The hono sub-app that serves every plugin route at exactly its path. Mount it on the main app with
 * `app.route('/', pluginRoutes(table, options))`, after the built-in routes. Request ids and the per-request
 * logger come from `createHttpApp`.
 *
 * - `?agentId=` picks the serving agent (see `selectRouteEntry`).
 * - With `authToken`, non-public routes need a matching `x-api-key` (compared in constant time); 401 otherwise.
 * - Framework rejections (400, 401, 404, 413) use the `/api` error envelope; handler failures use SPEC.md's
 *   plugin-route shape `{ success: false, error: string }` (500, 504).
 */
export function pluginRoutes(
  table: PluginRouteTable,
  options: PluginRoutesOptions = {},
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const limits = {
    bodyLimit: options.bodyLimit ?? MEBIBYTE,
    uploadLimit: options.uploadLimit ?? 10 * MEBIBYTE,
    routeTimeoutMs: options.routeTimeoutMs ?? 30_000,
  };
  const token = options.authToken;

  for (const group of groupMounts(table.entries)) {
    app.on(group.method, group.path, async (c: Context<AppEnv>) => {
      const authorized = !token || safeEqual(c.req.header(API_KEY_HEADER), token);
      // Refused before agent selection when nothing here is public, so that a caller without the key learns
      // nothing about which agents exist.
      if (!authorized && group.entries.every((entry) => !entry.route.public)) throw unauthorized();
      const entry = selectRouteEntry(
        group.entries,
        table.agents,
        c.req.query('agentId'),
        `${group.method} ${group.path}`,
      );
      if (!authorized && !entry.route.public) throw unauthorized();
      if (entry.route.type === 'STATIC') return serveStatic(c, entry);
      return handlePluginRoute(c, entry, limits);
    });
  }
  app.onError(handleError);
  return app;
}
