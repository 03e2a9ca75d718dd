import { createLogger, createServer, loadConfig, type ParleyServer } from '@parley/server';
import { buildServerOptions } from './build-server-options';
import { describeStartupError } from './describe-startup-error';
import { serveWebPage } from '../web/serve-web-page';

/**
 * `parley` (no command): starts the server from the environment, `.env` and the command line, and stops it
 * gracefully on SIGTERM or SIGINT. Bad input exits 1 with one line.
 */
export async function serve(argv: readonly string[]): Promise<void> {
  let server: ParleyServer;
  try {
    const cwd = process.cwd();
    const config = await loadConfig({ env: process.env, argv, cwd });
    const { options } = await buildServerOptions(config, cwd);
    server = createServer({ ...options, logger: createLogger(config.logLevel) });
    serveWebPage(server);
    const { url } = await server.start();
    console.log(`Parley is listening on ${url}`);
    for (const agent of server.agents.summaries()) {
      console.log(`  agent ${agent.name} (${agent.id})`);
    }
  } catch (error) {
    console.error(`parley: ${describeStartupError(error)}`);
    process.exit(1);
  }

  const stop = (signal: string) => {
    console.log(`Parley: ${signal} received, stopping`);
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
