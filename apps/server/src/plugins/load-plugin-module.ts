import type { Plugin } from '@parley/plugin-sdk';
import { ConfigError } from '@parley/server';
import { EXAMPLE_PLUGINS } from './example-plugins';
import { isPathSpecifier, resolvePluginSpecifier } from './resolve-plugin-specifier';

/** The plugin a module exports: its default export, else `plugin`, else the one export that looks like a plugin. */
function pluginOf(module: Record<string, unknown>): unknown {
  if (module.default !== undefined) return module.default;
  if (module.plugin !== undefined) return module.plugin;
  const candidates = Object.values(module).filter(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { name?: unknown }).name === 'string' &&
      ('routes' in value || 'init' in value),
  );
  return candidates.length === 1 ? candidates[0] : undefined;
}

/**
 * Loads a plugin from a module: a file path (relative to `cwd`) or a package installed where the app runs,
 * ESM-only packages included. The plugin is the module's default export, else its `plugin` export, else its only
 * plugin-shaped export; the server validates its shape.
 *
 * @param where - names the setting in errors, e.g. `PLUGINS` or `character Ada`.
 * @param alsoTried - what the caller already tried, listed first in the error.
 * @throws ConfigError naming the specifier and everything that was tried.
 */
export async function loadPluginModule(
  specifier: string,
  cwd: string,
  where = 'PLUGINS',
  alsoTried: readonly string[] = [],
): Promise<Plugin> {
  const resolution = resolvePluginSpecifier(specifier, cwd);
  if (!resolution.found) {
    const examples = [...EXAMPLE_PLUGINS.keys()].join(', ');
    const tried = [...alsoTried, `an example plugin (${examples})`, ...resolution.attempts];
    // A package name gets the one command that installs it where the app resolves packages from.
    const fix = isPathSpecifier(specifier)
      ? 'Check the path (relative to the working directory)'
      : `Install it where the app runs (\`npm install ${specifier}\` in ${cwd})`;
    throw new ConfigError(
      `${where}: plugin "${specifier}" was not found. Tried: ${tried.join('; ')}. ${fix}, or give a path such as ./my-plugin.js`,
    );
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(resolution.url)) as Record<string, unknown>;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const kind = isPathSpecifier(specifier) ? 'file' : 'package';
    const reason = code ? `${code}: ${String(message).split('\n')[0]}` : String(message);
    throw new ConfigError(
      `${where}: plugin ${kind} "${specifier}" (${resolution.url}) cannot be loaded (${reason})`,
      { cause: error },
    );
  }
  const plugin = pluginOf(module);
  if (typeof plugin !== 'object' || plugin === null) {
    throw new ConfigError(
      `${where}: "${specifier}" has no default export, \`plugin\` export or single plugin export`,
    );
  }
  return plugin as Plugin;
}
