import {
  ConfigError,
  createLogger,
  createServer,
  loadConfig,
  type ParleyServer,
} from '@parley/server';

/** Starts the server from the environment, `.env` and the command line; exits 1 with one line on bad input. */
async function main(): Promise<void> {
  let server: ParleyServer;
  try {
    const config = await loadConfig({ env: process.env, argv: process.argv.slice(2) });
    server = createServer({
      port: config.port,
      host: config.host,
      characters: config.characters,
      env: config.env,
      authToken: config.authToken,
      logger: createLogger(config.logLevel),
    });
    const { url } = await server.start();
    console.log(`Parley is listening on ${url}`);
    for (const agent of server.agents.summaries())
      console.log(`  agent ${agent.name} (${agent.id})`);
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

function describeStartupError(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return 'the port is already in use (set PORT to another one)';
  if (code === 'EACCES') return 'permission denied binding the port (use a port above 1023)';
  if (code === 'EADDRNOTAVAIL') return 'HOST is not an address of this machine';
  return error instanceof Error ? error.message : String(error);
}

void main();
