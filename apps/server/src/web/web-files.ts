import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/**
 * The page's policy: everything from this origin only, the socket included; no inline script, no framing.
 * Vite emits the page as files, so nothing inline is needed.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "connect-src 'self' ws: wss:",
  "img-src 'self' data:",
  "style-src 'self'",
  "script-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface WebFile {
  body: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

/** Serves the built chat page's files from memory, read once from `root`. */
export interface WebFiles {
  /**
   * The response for a file of the page: `index.html`, or `assets/<name>` (hashed names, cached for a year).
   * 404 for anything else; 503 when the page was never built.
   */
  respond(file: string, ifNoneMatch?: string): Promise<Response>;
}

const ASSET_NAME = /^assets\/[A-Za-z0-9._-]+$/;

function headersOf(file: string, body: Uint8Array): Record<string, string> {
  const html = file === 'index.html';
  const headers: Record<string, string> = {
    'content-type': MEDIA_TYPES[extname(file)] ?? 'application/octet-stream',
    'cache-control': html ? 'no-cache' : 'public, max-age=31536000, immutable',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  if (html) headers['content-security-policy'] = CONTENT_SECURITY_POLICY;
  return headers;
}

/**
 * The chat page's files under `root` (the `vite build` output of `@parley/web`). Names are checked before
 * any file is touched: only `index.html` and single-segment names under `assets/`, so no request reaches
 * outside the folder.
 */
export function createWebFiles(root: string): WebFiles {
  const cache = new Map<string, Promise<WebFile | undefined>>();

  const load = (file: string) => {
    let entry = cache.get(file);
    if (!entry) {
      entry = readFile(join(root, file)).then(
        (content) => {
          const body = new Uint8Array(content);
          return { body, headers: headersOf(file, body) };
        },
        () => undefined,
      );
      // Only what exists is kept, so a page built after the server started is found on the next request.
      void entry.then((found) => found ?? cache.delete(file));
      cache.set(file, entry);
    }
    return entry;
  };

  return {
    async respond(file, ifNoneMatch) {
      if (file !== 'index.html' && !ASSET_NAME.test(file)) {
        return new Response('Not found', { status: 404 });
      }
      const found = await load(file);
      if (!found) {
        return file === 'index.html'
          ? new Response(
              'The chat page is not built. Build it with: npx -y pnpm@10 --filter @parley/web build\n',
              { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' } },
            )
          : new Response('Not found', { status: 404 });
      }
      if (ifNoneMatch === found.headers.etag) {
        return new Response(null, { status: 304, headers: found.headers });
      }
      return new Response(found.body, { status: 200, headers: found.headers });
    },
  };
}
