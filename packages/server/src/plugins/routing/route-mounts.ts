import type { PluginRouteEntry } from '../plugin-route-table';

/** The HTTP methods a plugin route can be served under. */
export type MountMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A method and a hono path one route answers. */
export interface RouteMount {
  method: MountMethod;
  path: string;
}

/** The path that matches everything under `path` (and `path` itself, as hono's `/*` does). */
export function wildcardPathOf(path: string): string {
  return path.endsWith('/') ? `${path}*` : `${path}/*`;
}

/**
 * The method and path pairs a route answers. A STATIC route answers GET (hono answers HEAD with GET handlers);
 * a STATIC folder also answers everything beneath it.
 */
export function routeMountsOf(
  entry: Pick<PluginRouteEntry, 'route' | 'staticTarget'>,
): RouteMount[] {
  const { route, staticTarget } = entry;
  if (route.type !== 'STATIC') return [{ method: route.type, path: route.path }];
  const mounts: RouteMount[] = [{ method: 'GET', path: route.path }];
  if (staticTarget?.kind === 'directory') {
    mounts.push({ method: 'GET', path: wildcardPathOf(route.path) });
  }
  return mounts;
}
