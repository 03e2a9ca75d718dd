import type { AgentRuntime, Plugin } from '@parley/plugin-sdk';
import {
  createModelFromEnv,
  toServerOptions,
  type ParleyConfig,
  type ServerOptions,
} from '@parley/server';
import { pluginsForAgents } from '../plugins/plugins-for-agents';
import { resolvePlugins } from '../plugins/resolve-plugins';

/** Server options plus the app's plugin choice, which `parley test` also needs. */
export interface AppServerOptions {
  options: ServerOptions;
  pluginsFor: (agent: AgentRuntime) => Plugin[];
}

/**
 * Everything the app passes to `createServer`: the operator's configuration, the model its settings select,
 * and the plugins (`PLUGINS`, narrowed per agent by a character's `plugins`).
 */
export async function buildServerOptions(
  config: ParleyConfig,
  cwd: string,
): Promise<AppServerOptions> {
  const plugins = await resolvePlugins(config.env.PLUGINS, cwd);
  const pluginsFor = pluginsForAgents(plugins, config.characters);
  return {
    options: {
      ...toServerOptions(config),
      model: createModelFromEnv(config.env),
      plugins: pluginsFor,
    },
    pluginsFor,
  };
}
