import type { Plugin } from '@parley/plugin-sdk';
import { ConfigError } from '@parley/server';
import { DEFAULT_EXAMPLE_PLUGINS, EXAMPLE_PLUGINS } from './example-plugins';
import { loadPluginModule } from './load-plugin-module';

/**
 * The plugins the app loads, from the `PLUGINS` setting (comma-separated):
 *
 * - unset or empty: every example plugin (the default), quiet about their settings unless a character names one;
 * - `examples`: every example plugin, asked for (their warnings about unset settings are logged);
 * - `none`: no plugin;
 * - an example's name (`webhook`, `send-agent-message`, `github`, `upload`, `schedule`);
 * - a module: a path (`./my-plugin.js`, relative to `cwd`) or an installed package name.
 *
 * Items combine: `PLUGINS=examples,./my-plugin.js`. Each plugin is loaded once, in the order given.
 *
 * @throws ConfigError naming the item that cannot be loaded, or `none` mixed with other items.
 */
export async function resolvePlugins(value: string | undefined, cwd: string): Promise<Plugin[]> {
  const items = (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  // Nobody asked for the examples by name: they start quiet about their own settings.
  if (items.length === 0) return [...DEFAULT_EXAMPLE_PLUGINS];
  if (items.includes('none')) {
    if (items.length > 1)
      throw new ConfigError('PLUGINS: "none" cannot be combined with other plugins');
    return [];
  }
  const plugins: Plugin[] = [];
  for (const item of items) {
    if (item === 'examples') plugins.push(...EXAMPLE_PLUGINS.values());
    else plugins.push(EXAMPLE_PLUGINS.get(item) ?? (await loadPluginModule(item, cwd)));
  }
  return [...new Set(plugins)];
}
