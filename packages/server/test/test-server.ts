import { createServer, type ParleyServer, type ServerOptions } from '../src/create-server';
import { createLogger } from '../src/logger';
import { copyPGliteTemplate, type TestDatabase } from './databases';

/** A started server on a free port with its own database, disposed with `await using`. */
export interface TestServer extends AsyncDisposable {
  server: ParleyServer;
  url: string;
  database: TestDatabase;
}

/** Starts a server on port 0 over a copy of the template database (or the database given). */
export async function startTestServer(
  options: ServerOptions = {},
  database?: TestDatabase,
): Promise<TestServer> {
  const db = database ?? (await copyPGliteTemplate());
  const server = createServer({
    port: 0,
    logger: createLogger('silent'),
    env: {},
    ...options,
    database: db.location,
  });
  const { url } = await server.start();
  return {
    server,
    url,
    database: db,
    async [Symbol.asyncDispose]() {
      await server.stop();
      await db.dispose();
    },
  };
}
