import {
  createLogger,
  escapeControlCharacters,
  createServer,
  startTracing,
  type ParleyServer,
  type StartedTracing,
} from '@parley/server';
import { loadConfig, type ParleyConfig } from '@parley/server/config';
import { createMetrics, metricsRoutes, socketSources } from '@parley/server/metrics';
import { serveWebPage } from '../web/serve-web-page';
import { buildServerOptions } from './build-server-options';
import { describeStartupError } from './describe-startup-error';
import { roomsOf, routesOf, startupBanner } from './startup-banner';
import { appVersion } from './version';

/**
 * `parley start` (the default): starts the server from the environment, `.env` and the command line, prints the
 * banner (pretty logs) or logs it as one JSON line, and stops gracefully on SIGTERM or SIGINT. Bad input exits 1
 * with one line naming the setting and its value.
 */
export async function serve(argv: readonly string[]): Promise<void> {
  let config: ParleyConfig | undefined;
  let tracing: StartedTracing | undefined;
  try {
    const cwd = process.cwd();
    config = await loadConfig({ env: process.env, argv, cwd });
    const logger = createLogger(config.logLevel, { format: config.logFormat });
    for (const warning of config.warnings) logger.warn(warning);
    // Each elizaOS plugin a character lists that Parley replaces or maps, once.
    for (const note of config.notes) logger.info(note);
    const { options, pluginsFor } = await buildServerOptions(config, cwd);
    const metrics = createMetrics();
    // Traces only when OTEL_TRACES_EXPORTER asks for them: off, nothing is started.
    tracing = await startTracing(config.env);
    // Given metrics, the server counts its requests, replies and queues into them.
    const server = createServer({
      ...options,
      logger,
      metrics,
      ...(tracing ? { tracerProvider: tracing.tracerProvider } : {}),
    });
    metrics.watch(socketSources(server.io));
    server.app.route('/', metricsRoutes(metrics, { authToken: config.authToken }));
    serveWebPage(server);
    const { url } = await server.start();
    // Before the banner: whoever reads it may stop the server at once, and must find the handlers in place.
    stopOnSignals(server, tracing);
    // Only the plugins some agent really has (a character's `plugins` narrows them): their routes are mounted.
    const plugins = [...new Set(server.agents.list().flatMap((agent) => pluginsFor(agent)))];
    const banner = {
      version: appVersion(),
      url,
      agents: server.agents.summaries(),
      plugins,
      authToken: config.authToken !== undefined,
      rooms: roomsOf(options),
    };
    // In pretty mode the banner is one readable block, written as it is: the logger escapes line breaks (so that a
    // request cannot forge a line), and each of the banner's lines is escaped here instead, since an agent's name
    // comes from a character or the agents API. In JSON mode one structured line a machine can read.
    if (isPretty(config)) {
      const lines = startupBanner(banner).split('\n').map(escapeControlCharacters);
      process.stdout.write(`${lines.join('\n')}\n`);
    } else {
      logger.info(
        {
          url,
          chat: `${url}/`,
          docs: `${url}/api/docs`,
          agents: banner.agents,
          rooms: banner.rooms,
          plugins: plugins.map((plugin) => ({ name: plugin.name, routes: routesOf(plugin) })),
        },
        `Parley ${banner.version} is listening on ${url}`,
      );
    }
  } catch (error) {
    process.stderr.write(`parley: ${describeStartupError(error, config)}\n`);
    process.exit(1);
  }
}

/** Stops `server` gracefully on the first SIGTERM or SIGINT, then exits 0 (1 if stopping failed). */
function stopOnSignals(server: ParleyServer, tracing: StartedTracing | undefined): void {
  const stop = (signal: string) => {
    server.logger.info(`${signal} received, stopping`);
    server
      .stop()
      // The last spans are exported before the process exits.
      .then(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** Whether logs are pretty: `LOG_FORMAT=pretty`, or unset on a terminal. */
function isPretty(config: ParleyConfig): boolean {
  return config.logFormat === 'pretty' || (config.logFormat === undefined && process.stdout.isTTY);
}
