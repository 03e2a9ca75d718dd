import type { AgentRuntime, Plugin } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import { ConfigError } from '../../errors/config-error';
import type { PluginRouteEntry, PluginRouteTable } from '../plugin-route-table';
import { createPluginRuntime } from './create-plugin-runtime';
import { resolveStaticTarget } from './resolve-static-target';
import { routeMountsOf } from '../routing/route-mounts';
import { startPlugin, type LoadedPlugin } from './start-plugin';
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

async function collectRoutes(
  plugins: readonly LoadedPlugin[],
  cwd: string,
): Promise<PluginRouteEntry[]> {
  const entries: PluginRouteEntry[] = [];
  const owners = new Map<string, string>();
  for (const { agent, plugin, runtime } of plugins) {
    for (const route of plugin.routes ?? []) {
      const entry: PluginRouteEntry = { pluginName: plugin.name, route, agent, runtime };
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
    const plugins = options.pluginsFor(agent).map((plugin, index) => {
      const valid = validatePlugin(plugin, `agent ${agent.character.name}, plugin ${index + 1}`);
      return { agent, plugin: valid, runtime: createPluginRuntime(agent, valid.name) };
    });
    entries.push(...(await collectRoutes(plugins, cwd)));
    loaded.push(...plugins);
  }
  for (const item of loaded) {
    await startPlugin(item, options.logger);
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
