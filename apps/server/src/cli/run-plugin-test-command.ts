import { runPluginSuites } from '@parley/plugin-sdk/testing';
import { createLogger, createServer, type ParleyServer, type ServerOptions } from '@parley/server';
import { loadConfig, type ParleyConfig } from '@parley/server/config';
import { buildServerOptions } from './build-server-options';
import { describeStartupError } from './describe-startup-error';
import { formatTestLine, formatTestSummary, type PluginRun } from './format-test-report';

/**
 * The options with every `SERVER_URL` (environment and characters) cleared, so that it falls back to the test
 * server's own address: plugin tests must call the server under test, never a configured production one.
 */
function withLocalServerUrl(options: ServerOptions): ServerOptions {
  return {
    ...options,
    env: { ...options.env, SERVER_URL: '' },
    characters: options.characters?.map((character) => ({
      ...character,
      settings: { ...character.settings, SERVER_URL: '' },
    })),
  };
}

/**
 * `parley test`: loads the configuration and plugins exactly as the server does, starts the server on a free
 * local port with an in-memory database, runs every loaded plugin's `tests` suites for each agent that loads
 * it, prints a report and resolves with the exit code: 1 when a test failed or the server could not start,
 * else 0.
 */
export async function runPluginTestCommand(argv: readonly string[]): Promise<number> {
  let server: ParleyServer;
  let config: ParleyConfig | undefined;
  let pluginsFor: Awaited<ReturnType<typeof buildServerOptions>>['pluginsFor'];
  try {
    const cwd = process.cwd();
    config = await loadConfig({ env: process.env, argv, cwd });
    const built = await buildServerOptions(config, cwd);
    pluginsFor = built.pluginsFor;
    // Route and plugin logs would bury the report; LOG_LEVEL set explicitly still shows them.
    const level = config.env.LOG_LEVEL?.trim() ? config.logLevel : 'silent';
    server = createServer({
      ...withLocalServerUrl(built.options),
      port: 0,
      host: '127.0.0.1',
      database: { kind: 'pglite', dataDir: 'memory' },
      logger: createLogger(level),
    });
    const { url } = await server.start();
    console.log(`parley test: server on ${url} (in-memory database)`);
  } catch (error) {
    console.error(`parley: ${describeStartupError(error, config)}`);
    return 1;
  }

  const runs: PluginRun[] = [];
  try {
    for (const agent of server.agents.list()) {
      for (const plugin of pluginsFor(agent)) {
        if (!plugin.tests?.length) continue;
        console.log(`\n${agent.character.name} › ${plugin.name}`);
        const report = await runPluginSuites(plugin, agent, {
          onResult: (result) => console.log(formatTestLine(result)),
        });
        runs.push({ agent: agent.character.name, plugin: plugin.name, results: report.results });
      }
    }
  } finally {
    await server.stop();
  }
  console.log(formatTestSummary(runs));
  return runs.some((run) => run.results.some((result) => !result.ok)) ? 1 : 0;
}
