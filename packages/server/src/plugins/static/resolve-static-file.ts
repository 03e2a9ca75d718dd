import { realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ParleyError } from '@parley/core';
import type { StaticTarget } from '../plugin-route-table';

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * The path segments below a STATIC folder route, decoded. Works on the raw (still percent-encoded) path, so an
 * encoded slash, backslash, NUL or dot-segment is seen and refused rather than decoded into a traversal.
 *
 * @throws ParleyError `BAD_REQUEST` for a segment that could step outside the folder.
 */
export function staticSegmentsOf(routePath: string, rawPathname: string): string[] {
  const depth = routePath.split('/').filter(Boolean).length;
  const raw = rawPathname.split('/').filter(Boolean).slice(depth);
  return raw.map((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw new ParleyError('BAD_REQUEST', 'Invalid path');
    }
    if (decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) {
      throw new ParleyError('BAD_REQUEST', 'Invalid path');
    }
    return decoded;
  });
}

/** Whether a relative path has a segment starting with a dot (`.env`, `.git/config`). */
function hasDotSegment(relativePath: string): boolean {
  return relativePath.split(sep).some((segment) => segment.startsWith('.'));
}

async function realFileInside(
  root: string,
  candidate: string,
  allowIndex = true,
): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return undefined;
  }
  // A symlink may point anywhere; only what really lies under the root, and is no dotfile there, is served.
  if (!isInside(root, real) || hasDotSegment(relative(root, real))) return undefined;
  const stats = await stat(real);
  if (stats.isFile()) return real;
  if (stats.isDirectory() && allowIndex)
    return realFileInside(root, join(real, 'index.html'), false);
  return undefined;
}

/**
 * The real path of the file a STATIC route serves for `segments`, or undefined when there is none (404).
 * A folder resolves to its `index.html`. Dotfiles are never served: `.env` or `.git` left in a public folder
 * should not leak, neither by name nor through a symlink (the resolved target is checked, not only the name).
 */
export async function resolveStaticFile(
  target: StaticTarget,
  segments: readonly string[],
): Promise<string | undefined> {
  if (target.kind === 'file')
    return segments.length === 0 ? realFileInside(target.root, target.root) : undefined;
  if (segments.some((segment) => segment.startsWith('.'))) return undefined;
  return realFileInside(target.root, join(target.root, ...segments));
}
