import { type ParleyServer, type ServerOptions, createLogger, createServer } from '@parley/server';

/** A started in-process server that stops itself when disposed. */
export interface TestServer extends AsyncDisposable {
  server: ParleyServer;
  url: string;
  port: number;
}

/**
 * Starts a real Parley server on a free port with in-memory PGlite, the offline model and no environment
 * (so nothing on the test machine leaks in). Dispose it, or call `server.stop()`.
 */
export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const server = createServer({
    port: 0,
    logger: createLogger('silent'),
    env: {},
    database: { kind: 'pglite', dataDir: 'memory' },
    ...options,
  });
  const { url, port } = await server.start();
  return { server, url, port, [Symbol.asyncDispose]: () => server.stop() };
}
