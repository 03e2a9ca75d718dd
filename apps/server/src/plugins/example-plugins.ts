import { calculatorPlugin } from '@parley/example-calculator';
import { githubPlugin } from '@parley/example-github';
import { schedulePlugin } from '@parley/example-schedule';
import { sendAgentMessagePlugin } from '@parley/example-send-agent-message';
import { uploadPlugin } from '@parley/example-upload';
import { webhookPlugin } from '@parley/example-webhook';
import type { AgentRuntime, Plugin, PluginLogger } from '@parley/plugin-sdk';

/**
 * The example plugins the app loads by default, so that every reference route of SPEC.md answers out of the
 * box and the default agent can act (the calculator). Keyed by plugin name, which is also what `PLUGINS` and a
 * character's `plugins` list use.
 */
export const EXAMPLE_PLUGINS: ReadonlyMap<string, Plugin> = new Map(
  [
    webhookPlugin,
    sendAgentMessagePlugin,
    githubPlugin,
    uploadPlugin,
    schedulePlugin,
    calculatorPlugin,
  ].map((plugin) => [plugin.name, plugin]),
);

/** The runtime `init` is given, its warnings logged at debug level. */
function withQuietWarnings(runtime: AgentRuntime): AgentRuntime {
  const logger = runtime.logger;
  const quiet: PluginLogger = {
    debug: (object, message) => logger.debug(object, message),
    info: (object, message) => logger.info(object, message),
    warn: (object, message) => logger.debug(object, message),
    error: (object, message) => logger.error(object, message),
  };
  return new Proxy(runtime, {
    get: (target, property): unknown =>
      property === 'logger' ? quiet : Reflect.get(target, property),
  });
}

/**
 * An example as a default start loads it: its `init`'s warnings about its own settings (`WEBHOOK_API_KEY`,
 * `GITHUB_WEBHOOK_SECRET`, `NOTIFICATION_CHANNEL_ID`) are debug lines, since nobody asked for the plugin; an
 * agent whose character lists it by name hears them.
 */
function quietUnlessNamed(plugin: Plugin): Plugin {
  const init = plugin.init;
  if (!init) return plugin;
  return {
    ...plugin,
    init: (config, runtime) =>
      init(
        config,
        runtime.character.plugins?.includes(plugin.name) ? runtime : withQuietWarnings(runtime),
      ),
  };
}

/**
 * The examples a start loads when `PLUGINS` is unset: every example, quiet about settings nobody asked for.
 * `PLUGINS=examples` or an example's name asks for them, and gets their warnings.
 */
export const DEFAULT_EXAMPLE_PLUGINS: readonly Plugin[] = [...EXAMPLE_PLUGINS.values()].map(
  quietUnlessNamed,
);
