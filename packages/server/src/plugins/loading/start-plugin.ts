import type { AgentRuntime, Plugin, PluginServiceClass } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import { settingText } from '../../agents/character';
import { ConfigError } from '../../errors/config-error';
import { UnofferedRuntimeMemberError } from './unoffered-runtime-member';

/** One plugin of one agent, with the runtime the plugin sees. */
export interface LoadedPlugin {
  agent: AgentRuntime;
  plugin: Plugin;
  runtime: AgentRuntime;
}

/** Parts of an elizaOS plugin Parley does not use: it has one chat model per server and its own storage. */
const UNUSED_PARTS = ['models', 'adapter'] as const;

function warnAboutUnusedParts({ agent, plugin }: LoadedPlugin, logger: Logger): void {
  const parts = UNUSED_PARTS.filter((part) => {
    const value: unknown = (plugin as unknown as Record<string, unknown>)[part];
    if (Array.isArray(value)) return value.length > 0;
    return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
  });
  if (parts.length === 0) return;
  logger.warn(
    { plugin: plugin.name, agent: agent.character.name, parts },
    `plugin declares ${parts.join(', ')}, which Parley does not use (one chat model per server, its own storage); its actions, providers, evaluators, routes, init, services and events are used`,
  );
}

/** The agent's settings as `init` takes them: text, as `getSetting` returns them. */
function settingsAsText(settings: Readonly<Record<string, unknown>> | undefined) {
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings ?? {})) {
    const text = settingText(value);
    if (text !== undefined) config[key] = text;
  }
  return config;
}

async function runInit({ agent, plugin, runtime }: LoadedPlugin, logger: Logger): Promise<void> {
  if (!plugin.init) return;
  try {
    await plugin.init(settingsAsText(agent.character.settings), runtime);
  } catch (error) {
    logger.error(
      { err: error, plugin: plugin.name, agent: agent.character.name },
      'plugin init failed',
    );
    // A missing runtime member is the server's limit, not a secret: say which one.
    const detail =
      error instanceof UnofferedRuntimeMemberError ? error.message : 'the cause is logged';
    throw new ConfigError(
      `plugin "${plugin.name}" failed to start for agent ${agent.character.name} (${detail})`,
      { cause: error },
    );
  }
}

async function startServices({ agent, plugin, runtime }: LoadedPlugin, logger: Logger) {
  for (const service of plugin.services ?? []) {
    const type = (service as Partial<PluginServiceClass>).serviceType ?? '?';
    try {
      const starter = agent as AgentRuntime & {
        startService?: (service: PluginServiceClass, runtime: AgentRuntime) => Promise<void>;
      };
      if (starter.startService) await starter.startService(service, runtime);
      else await agent.registerService(service);
    } catch (error) {
      // A service is an optional capability: routes that need it find none, as in elizaOS.
      logger.error(
        { err: error, plugin: plugin.name, agent: agent.character.name, service: type },
        error instanceof UnofferedRuntimeMemberError
          ? `plugin service did not start: ${error.message}`
          : 'plugin service did not start',
      );
    }
  }
}

/** A runtime that takes a plugin's actions, providers and evaluators (the server's own runtime does). */
interface AdoptingRuntime extends AgentRuntime {
  adopt(plugin: Plugin, runtime: AgentRuntime): void;
}

/**
 * Starts one plugin for one agent: its actions, providers and evaluators join the agent's (a second action of one
 * name, or a `parameters` schema that does not compile, stops start-up naming the plugin), then
 * `init(config, runtime)` (a failure stops start-up with an error naming the plugin, and the runtime member when
 * that was the cause), then its event handlers, then its services (a service that fails to start is logged and
 * left out). A warning names the parts of an elizaOS plugin Parley does not use.
 */
export async function startPlugin(loaded: LoadedPlugin, logger: Logger): Promise<void> {
  warnAboutUnusedParts(loaded, logger);
  const agent = loaded.agent as Partial<AdoptingRuntime>;
  agent.adopt?.(loaded.plugin, loaded.runtime);
  await runInit(loaded, logger);
  for (const [event, handlers] of Object.entries(loaded.plugin.events ?? {})) {
    for (const handler of Array.isArray(handlers) ? handlers : []) {
      if (typeof handler === 'function') loaded.agent.registerEvent(event, handler);
    }
  }
  await startServices(loaded, logger);
}
