import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from '@parley/plugin-sdk';
import { ConfigError } from '@parley/server';

function isPath(specifier: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier);
}

/**
 * Loads a plugin from a module: a file path (relative to `cwd`) or a package installed where the app runs. The
 * plugin is the module's default export, else its `plugin` export; the server validates its shape.
 *
 * @throws ConfigError naming the specifier when the module cannot be found or exports no plugin.
 */
export async function loadPluginModule(specifier: string, cwd: string): Promise<Plugin> {
  let url: string;
  try {
    url = isPath(specifier)
      ? pathToFileURL(resolve(cwd, specifier)).href
      : pathToFileURL(createRequire(join(cwd, 'package.json')).resolve(specifier)).href;
  } catch {
    throw new ConfigError(
      `PLUGINS: "${specifier}" is neither an example plugin nor an installed package`,
    );
  }
  let module: { default?: unknown; plugin?: unknown };
  try {
    module = (await import(url)) as typeof module;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`PLUGINS: "${specifier}" cannot be loaded (${reason})`, { cause: error });
  }
  const plugin = module.default ?? module.plugin;
  if (typeof plugin !== 'object' || plugin === null) {
    throw new ConfigError(`PLUGINS: "${specifier}" has no default or \`plugin\` export`);
  }
  return plugin as Plugin;
}
