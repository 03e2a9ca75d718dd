import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolve as resolveImport } from 'import-meta-resolve';

/** Where a plugin module was found, or every place that was tried. */
export type SpecifierResolution =
  { found: true; url: string } | { found: false; attempts: string[] };

/** Whether a `PLUGINS` item is a file path rather than a package name. */
export function isPathSpecifier(specifier: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier) || specifier.startsWith('file:');
}

function reasonOf(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  const firstLine = String(message ?? error).split('\n')[0]!;
  return code ? `${code}: ${firstLine}` : firstLine;
}

/**
 * Resolves a plugin module the way the app's own `import` would, from `cwd`: a path (relative to `cwd`), else a
 * package with ESM conditions (`import`, `node`, `default`; what ESM-only packages such as elizaOS plugins
 * offer), else with CommonJS conditions (`require`) for packages that only offer those. Nothing is thrown: a
 * failure lists every attempt and why it failed, for one error that says all that was tried.
 */
export function resolvePluginSpecifier(specifier: string, cwd: string): SpecifierResolution {
  const parent = pathToFileURL(join(cwd, 'package.json')).href;
  if (isPathSpecifier(specifier)) {
    const url = specifier.startsWith('file:')
      ? specifier
      : pathToFileURL(resolve(cwd, specifier)).href;
    return { found: true, url };
  }
  const attempts: string[] = [];
  try {
    return { found: true, url: resolveImport(specifier, parent) };
  } catch (error) {
    attempts.push(`the package from ${cwd} with import conditions (${reasonOf(error)})`);
  }
  try {
    return { found: true, url: pathToFileURL(createRequire(parent).resolve(specifier)).href };
  } catch (error) {
    attempts.push(`the package from ${cwd} with require conditions (${reasonOf(error)})`);
  }
  return { found: false, attempts };
}
