import type { ParleyServer } from '@parley/server';
import { webRoot } from '@parley/web';
import { createWebFiles } from './web-files';

/**
 * Serves the chat page (`@parley/web`) at `/` and its assets at `/assets/*`. Call it before `start()`: the
 * routes then come before plugin routes, like the built-in ones. The page is open without a token; what it
 * loads from the API asks for the key.
 *
 * @example
 * const server = createServer(options);
 * serveWebPage(server);
 */
export function serveWebPage(server: Pick<ParleyServer, 'app'>, root: string = webRoot): void {
  const files = createWebFiles(root);
  server.app.get('/', (c) => files.respond('index.html', c.req.header('if-none-match')));
  server.app.get('/assets/:file', (c) =>
    files.respond(`assets/${c.req.param('file')}`, c.req.header('if-none-match')),
  );
}
