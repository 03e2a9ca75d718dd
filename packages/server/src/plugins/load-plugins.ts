import type { AgentRuntime, Plugin } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error';
import type { PluginRouteEntry, PluginRouteTable } from './plugin-route-table';
import { resolveStaticTarget } from './resolve-static-target';
import { routeMountsOf } from './route-mounts';
import { validatePlugin } from './validate-plugin';

/** Options of {@link loadPlugins}. */
export interface LoadPluginsOptions {
  /** The agents in order; the first is the default agent. */
  agents: readonly AgentRuntime[];
  /** The plugins one agent loads. The same plugin may be given to several agents. */
  pluginsFor: (agent: AgentRuntime) => readonly Plugin[];
  logger: Logger;
  /** Folder that relative STATIC `filePath`s resolve against (default `process.cwd()`). */
  cwd?: string;
}

interface LoadedPlugin {
  agent: AgentRuntime;
  plugin: Plugin;
}

async function collectRoutes(
  agent: AgentRuntime,
  plugins: readonly Plugin[],
  cwd: string,
): Promise<PluginRouteEntry[]> {
  const entries: PluginRouteEntry[] = [];
  const owners = new Map<string, string>();
  for (const plugin of plugins) {
    for (const route of plugin.routes ?? []) {
      const entry: PluginRouteEntry = { pluginName: plugin.name, route, agent };
      if (route.type === 'STATIC' && route.filePath) {
        entry.staticTarget = await resolveStaticTarget(route.filePath, cwd, plugin.name);
      }
      for (const mount of routeMountsOf(entry)) {
        const key = `${mount.method} ${mount.path}`;
        const owner = owners.get(key);
        if (owner !== undefined) {
          const other = owner === plugin.name ? 'itself' : `plugin "${owner}"`;
          throw new ConfigError(
            `plugin "${plugin.name}": route ${key} of agent ${agent.character.name} is already declared by ${other}`,
          );
        }
        owners.set(key, plugin.name);
      }
      entries.push(entry);
    }
  }
  return entries;
}

async function initPlugin({ agent, plugin }: LoadedPlugin, logger: Logger): Promise<void> {
  if (!plugin.init) return;
  try {
    await plugin.init({ ...agent.character.settings }, agent);
  } catch (error) {
    logger.error(
      { err: error, plugin: plugin.name, agent: agent.character.name },
      'plugin init failed',
    );
    throw new ConfigError(
      `plugin "${plugin.name}" failed to start for agent ${agent.character.name} (the cause is logged)`,
      { cause: error },
    );
  }
}

/**
 * Validates every agent's plugins, collects their routes, then runs each plugin's `init(config, runtime)` once
 * per agent, in order. Everything is checked before any `init` runs, so a bad route never leaves plugins half
 * started; the table exists only once every `init` succeeded, so no route serves before its plugin is ready.
 *
 * @throws ConfigError naming the plugin: invalid plugin or route, a route under a built-in prefix, two routes
 * with the same method and path for one agent, a missing STATIC target, or an `init` that failed.
 *
 * @example
 * const table = await loadPlugins({ agents: registry.list(), pluginsFor: () => [webhooks], logger });
 * app.route('/', pluginRoutes(table, { authToken }));
 */
export async function loadPlugins(options: LoadPluginsOptions): Promise<PluginRouteTable> {
  const cwd = options.cwd ?? process.cwd();
  const loaded: LoadedPlugin[] = [];
  const entries: PluginRouteEntry[] = [];
  for (const agent of options.agents) {
    const plugins = options
      .pluginsFor(agent)
      .map((plugin, index) =>
        validatePlugin(plugin, `agent ${agent.character.name}, plugin ${index + 1}`),
      );
    entries.push(...(await collectRoutes(agent, plugins, cwd)));
    loaded.push(...plugins.map((plugin) => ({ agent, plugin })));
  }
  for (const item of loaded) {
    await initPlugin(item, options.logger);
    options.logger.info(
      {
        plugin: item.plugin.name,
        agent: item.agent.character.name,
        routes: item.plugin.routes?.length ?? 0,
      },
      'plugin loaded',
    );
  }
  return { agents: [...options.agents], entries };
}
