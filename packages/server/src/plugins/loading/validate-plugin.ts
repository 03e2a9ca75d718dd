import {
  RESERVED_PATHS,
  RESERVED_PATH_PREFIXES,
  routeDefinitionSchema,
  toValidationIssues,
} from '@parley/core';
import type { Plugin, Route } from '@parley/plugin-sdk';
import { ConfigError } from '../../errors/config-error';

function isReserved(path: string): boolean {
  // Case-insensitive on purpose: a look-alike of a built-in path only confuses operators.
  const lower = path.toLowerCase();
  return (
    (RESERVED_PATHS as readonly string[]).includes(lower) ||
    RESERVED_PATH_PREFIXES.some((prefix) => lower === prefix || lower.startsWith(`${prefix}/`))
  );
}

/** The largest `bodyLimit` a route may declare: bodies are held in memory while the handler runs. */
export const MAX_ROUTE_BODY_LIMIT = 100 * 1024 * 1024;

function isValidBodyLimit(value: unknown): boolean {
  return (
    value === undefined ||
    (typeof value === 'number' &&
      Number.isInteger(value) &&
      value > 0 &&
      value <= MAX_ROUTE_BODY_LIMIT)
  );
}

function describeRoute(value: unknown, index: number): string {
  const route = (typeof value === 'object' && value !== null ? value : {}) as Partial<Route>;
  const label = typeof route.type === 'string' && typeof route.path === 'string';
  return label ? `route ${index + 1} (${route.type} ${route.path})` : `route ${index + 1}`;
}

/**
 * Checks that a loaded plugin holds what the contract promises: a non-empty name and valid routes outside the
 * built-in prefixes. Plugins are plain JavaScript at run time, so the types alone prove nothing.
 *
 * @param where - names the plugin's owner in errors, e.g. `agent Eliza, plugin 2`.
 * @throws ConfigError naming the plugin and the route.
 */
export function validatePlugin(plugin: unknown, where: string): Plugin {
  if (typeof plugin !== 'object' || plugin === null) {
    throw new ConfigError(`${where}: a plugin must be an object`);
  }
  const { name, routes } = plugin as Partial<Plugin>;
  if (typeof name !== 'string' || name.trim() === '') {
    throw new ConfigError(`${where}: plugin name must be a non-empty string`);
  }
  if (routes !== undefined && !Array.isArray(routes)) {
    throw new ConfigError(`plugin "${name}": routes must be an array`);
  }
  const init = (plugin as Partial<Plugin>).init;
  if (init !== undefined && typeof init !== 'function') {
    throw new ConfigError(`plugin "${name}": init must be a function`);
  }
  (routes ?? []).forEach((route: unknown, index) => {
    const result = routeDefinitionSchema.safeParse(route);
    if (!result.success) {
      const issue = toValidationIssues(result.error)[0];
      throw new ConfigError(
        `plugin "${name}" ${describeRoute(route, index)}: ${issue ? `${issue.path} ${issue.message}` : 'invalid route'}`,
      );
    }
    if (!isValidBodyLimit((route as Partial<Route>).bodyLimit)) {
      throw new ConfigError(
        `plugin "${name}" ${describeRoute(route, index)}: bodyLimit must be a whole number of bytes from 1 to ${MAX_ROUTE_BODY_LIMIT}`,
      );
    }
    if (isReserved(result.data.path)) {
      throw new ConfigError(
        `plugin "${name}" ${describeRoute(route, index)}: the path is the server's own (${[...RESERVED_PATH_PREFIXES, ...RESERVED_PATHS].join(', ')})`,
      );
    }
  });
  return plugin as Plugin;
}
