import type { AgentRuntime, Plugin } from '@parley/plugin-sdk';
import type { ServerOptions } from '@parley/server';
import {
  toServerOptions,
  type ConfiguredServerOptions,
  type ParleyConfig,
} from '@parley/server/config';
import { pluginsForAgents } from '../plugins/plugins-for-agents';
import { resolvePlugins } from '../plugins/resolve-plugins';

/** Server options plus the app's plugin choice, which `parley test`, `doctor` and the banner also need. */
export interface AppServerOptions {
  options: ConfiguredServerOptions & Pick<ServerOptions, 'plugins'>;
  /** Every plugin the app loads. */
  plugins: Plugin[];
  pluginsFor: (agent: AgentRuntime) => Plugin[];
}

/**
 * Everything the app passes to `createServer`: the operator's configuration through the one settings schema
 * (model and TEE included), and the plugins (`PLUGINS`, narrowed per agent by a character's `plugins`).
 */
export async function buildServerOptions(
  config: ParleyConfig,
  cwd: string,
): Promise<AppServerOptions> {
  const loaded = await resolvePlugins(config.plugins.join(','), cwd);
  const { plugins, pluginsFor } = await pluginsForAgents(loaded, config.characters, cwd);
  return { options: { ...toServerOptions(config), plugins: pluginsFor }, plugins, pluginsFor };
}
