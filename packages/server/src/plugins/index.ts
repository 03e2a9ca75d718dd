/**
 * @module plugins
 * Plugin loading (validation, `init`, the route table) and the hono sub-app that serves plugin routes.
 * `loading/` validates and starts plugins, `routing/` matches a request to a route and runs it, `body/` reads
 * request bodies, `static/` serves static folders and `express-compat/` is the Express-compatible `req`/`res`.
 */
export { loadPlugins } from './loading/load-plugins';
export type { LoadPluginsOptions } from './loading/load-plugins';
export { pluginRoutes } from './plugin-routes';
export type { PluginRoutesOptions } from './plugin-routes';
export type { PluginRouteEntry, PluginRouteTable, StaticTarget } from './plugin-route-table';
