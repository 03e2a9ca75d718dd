import type { AgentRuntime, Character, Plugin } from '@parley/plugin-sdk';
import { ConfigError } from '@parley/server';

/**
 * Which loaded plugins each agent gets: all of them, or, when its character lists `plugins` (by name), those.
 * Checked up front so that a typo in a character file stops start-up with the character's name in the error.
 *
 * @throws ConfigError when a character names a plugin that is not loaded.
 */
export function pluginsForAgents(
  plugins: readonly Plugin[],
  characters: readonly Character[],
): (agent: AgentRuntime) => Plugin[] {
  const byName = new Map(plugins.map((plugin) => [plugin.name, plugin]));
  for (const character of characters) {
    for (const name of character.plugins ?? []) {
      if (!byName.has(name)) {
        const loaded = [...byName.keys()].join(', ') || 'none';
        throw new ConfigError(
          `character ${character.name} lists plugin "${name}", which is not loaded (loaded: ${loaded}; see PLUGINS)`,
        );
      }
    }
  }
  return (agent) => {
    const names = agent.character.plugins;
    return names ? plugins.filter((plugin) => names.includes(plugin.name)) : [...plugins];
  };
}
