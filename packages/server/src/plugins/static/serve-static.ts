import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ParleyError } from '@parley/core';
import type { Context } from 'hono';
import type { AppEnv } from '../../http/app-env';
import { contentTypeOf } from './content-type-of';
import type { PluginRouteEntry } from '../plugin-route-table';
import { resolveStaticFile, staticSegmentsOf } from './resolve-static-file';

/**
 * Serves a STATIC route: the file itself, or a file under the folder (`index.html` for a folder). Streams the
 * file from an open handle, so large files are never read whole and the file served is the one that was
 * checked. HEAD gets the headers only.
 *
 * @throws ParleyError `NOT_FOUND` for a missing file, `BAD_REQUEST` for a path that tries to leave the folder.
 */
export async function serveStatic(c: Context<AppEnv>, entry: PluginRouteEntry): Promise<Response> {
  const target = entry.staticTarget!;
  const segments = staticSegmentsOf(entry.route.path, new URL(c.req.url).pathname);
  const filePath = await resolveStaticFile(target, segments);
  const notFound = () => new ParleyError('NOT_FOUND', `No file at ${c.req.path}`);
  if (!filePath) throw notFound();

  const handle = await open(filePath, 'r').catch(() => undefined);
  if (!handle) throw notFound();
  const stats = await handle.stat();
  const headers = {
    'content-type': contentTypeOf(filePath),
    'content-length': String(stats.size),
    'last-modified': stats.mtime.toUTCString(),
    'x-content-type-options': 'nosniff',
  };
  if (c.req.method === 'HEAD') {
    await handle.close();
    return new Response(null, { status: 200, headers });
  }
  // The stream owns the handle from here on and closes it when done, failed or cancelled.
  const body = Readable.toWeb(handle.createReadStream()) as ReadableStream<Uint8Array>;
  return new Response(body, { status: 200, headers });
}
