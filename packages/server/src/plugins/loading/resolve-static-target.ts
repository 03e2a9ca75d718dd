import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError } from '../../errors/config-error';
import type { StaticTarget } from '../plugin-route-table';

/**
 * Resolves a STATIC route's `filePath` (relative to `cwd`) to its real path and kind. A missing target stops
 * start-up: a route that can only ever answer 404 is a configuration mistake.
 */
export async function resolveStaticTarget(
  filePath: string,
  cwd: string,
  pluginName: string,
): Promise<StaticTarget> {
  try {
    const root = await realpath(resolve(cwd, filePath));
    const stats = await stat(root);
    if (stats.isDirectory()) return { root, kind: 'directory' };
    if (stats.isFile()) return { root, kind: 'file' };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(
      `plugin "${pluginName}": STATIC filePath ${filePath} cannot be read (${code})`,
    );
  }
  throw new ConfigError(
    `plugin "${pluginName}": STATIC filePath ${filePath} is not a file or folder`,
  );
}
