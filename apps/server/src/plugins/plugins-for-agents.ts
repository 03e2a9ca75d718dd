import type { AgentRuntime, Character, Plugin } from '@parley/plugin-sdk';
import { EXAMPLE_PLUGINS } from './example-plugins';
import { loadPluginModule } from './load-plugin-module';

/** Every plugin the app loads, and which of them each agent gets. */
export interface AgentPlugins {
  /** `PLUGINS` first, then the plugins only characters list, each once. */
  plugins: Plugin[];
  pluginsFor: (agent: AgentRuntime) => Plugin[];
}

/**
 * Which plugins each agent gets: every loaded plugin, or, when its character lists `plugins`, those. An entry is
 * a loaded plugin's name, an example's name, a path (relative to `cwd`) or a package name; entries that are not
 * loaded yet are loaded here (for that character only). Checked up front, so that a typo in a character file stops
 * start-up with the character's name and everything that was tried in the error.
 *
 * @throws ConfigError naming the character and the entry that cannot be loaded.
 */
export async function pluginsForAgents(
  loaded: readonly Plugin[],
  characters: readonly Character[],
  cwd: string,
): Promise<AgentPlugins> {
  const byName = new Map(loaded.map((plugin) => [plugin.name, plugin]));
  const byEntry = new Map<string, Plugin>();
  for (const character of characters) {
    for (const entry of character.plugins ?? []) {
      if (byName.has(entry) || byEntry.has(entry)) continue;
      const example = EXAMPLE_PLUGINS.get(entry);
      if (example) {
        byEntry.set(entry, example);
        continue;
      }
      const names = [...byName.keys()].join(', ') || 'none';
      byEntry.set(
        entry,
        await loadPluginModule(entry, cwd, `character ${character.name}`, [
          `a plugin loaded by PLUGINS (${names})`,
        ]),
      );
    }
  }
  const plugins = [...new Set([...loaded, ...byEntry.values()])];
  const pluginsFor = (agent: AgentRuntime): Plugin[] => {
    const entries = agent.character.plugins;
    if (!entries) return [...loaded];
    return [...new Set(entries.map((entry) => (byName.get(entry) ?? byEntry.get(entry))!))];
  };
  return { plugins, pluginsFor };
}
