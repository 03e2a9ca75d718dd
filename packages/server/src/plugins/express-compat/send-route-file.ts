import { open, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ParleyError } from '@parley/core';
import type { HttpRouteResponse, SendFileOptions } from '@parley/plugin-sdk';
import { contentTypeOf } from '../static/content-type-of';
import { resolveStaticFile } from '../static/resolve-static-file';

/**
 * What a file is sent into: the Express-compatible response, seen only through what `sendFile` needs (so this
 * file does not import the response class that calls it).
 */
export type FileResponse = NodeJS.WritableStream &
  Pick<HttpRouteResponse, 'headersSent' | 'hasHeader' | 'setHeader' | 'type' | 'status'> & {
    abort(error: Error): void;
  };

function notFound(): ParleyError {
  return new ParleyError('NOT_FOUND', 'File not found');
}

/**
 * The real path of the file `sendFile` may serve, under the STATIC rules: `path` below `options.root`, or an
 * absolute path below its own folder; no dot segment, nothing outside the root once symlinks are resolved.
 */
async function locateFile(path: string, options: SendFileOptions): Promise<string> {
  const rootPath = options.root === undefined ? dirname(path) : resolve(options.root);
  const segments =
    options.root === undefined ? [basename(path)] : path.split(/[\\/]+/).filter(Boolean);
  const root = await realpath(rootPath).catch(() => undefined);
  if (root === undefined) throw notFound();
  const file = await resolveStaticFile({ root, kind: 'directory' }, segments);
  if (file === undefined) throw notFound();
  return file;
}

async function streamFile(
  response: FileResponse,
  path: string,
  options: SendFileOptions,
): Promise<void> {
  const file = await locateFile(path, options);
  const handle = await open(file, 'r').catch(() => {
    throw notFound();
  });
  try {
    const stats = await handle.stat();
    if (!response.headersSent) {
      if (!response.hasHeader('content-type')) response.type(contentTypeOf(file));
      response.setHeader('content-length', stats.size);
      response.setHeader('last-modified', stats.mtime.toUTCString());
      response.setHeader('x-content-type-options', 'nosniff');
      for (const [name, value] of Object.entries(options.headers ?? {}))
        response.setHeader(name, value);
    }
  } catch (error) {
    await handle.close();
    throw error;
  }
  // The read stream owns the handle from here on and closes it when done, failed or cancelled.
  await pipeline(handle.createReadStream(), response);
}

/**
 * Express's `res.sendFile`: streams a file into the response. `callback` gets the error of a missing or refused
 * file, or nothing once the file is sent; without a callback a missing file answers 404.
 *
 * @throws TypeError for a relative path without `options.root` (a bug in the handler, as in Express).
 */
export function sendRouteFile(
  response: FileResponse,
  path: string,
  options: SendFileOptions,
  callback?: (error?: Error) => void,
): void {
  if (options.root === undefined && !isAbsolute(path)) {
    throw new TypeError('sendFile needs an absolute path or a root option');
  }
  streamFile(response, path, options).then(
    () => callback?.(),
    (error: Error) => {
      if (callback) return callback(error);
      if (!response.headersSent) {
        response.status(404).json({ success: false, error: 'File not found' });
      } else response.abort(error);
    },
  );
}
