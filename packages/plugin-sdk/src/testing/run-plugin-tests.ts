import type { Plugin } from '../plugin/plugin';
import { toPluginTestReport, type PluginTestReport } from './plugin-test-report';
import { runPluginSuites } from './run-plugin-suites';
import { startTestServer, type TestServerOptions } from './start-test-server';

/** Options of {@link runPluginTests}. */
export interface RunPluginTestsOptions extends TestServerOptions {
  /** How long one test may run before it fails (default 15000 ms). */
  timeoutMs?: number;
}

/**
 * Starts a live in-process Parley server with the plugin loaded, runs the plugin's `tests` suites against each
 * agent's real runtime (so tests can call the plugin's routes over HTTP at `SERVER_URL`), stops the server and
 * gives back the results. Requires `@parley/server` in the plugin project's devDependencies.
 *
 * @example
 * // my-plugin.test.ts (vitest)
 * it('passes its own suites', async () => {
 *   const report = await runPluginTests(plugin, { settings: { WEBHOOK_API_KEY: 'test-key' } });
 *   expect(report.results.filter((result) => !result.ok)).toEqual([]);
 * });
 */
export async function runPluginTests(
  plugin: Plugin,
  options: RunPluginTestsOptions = {},
): Promise<PluginTestReport> {
  const { timeoutMs, ...serverOptions } = options;
  await using server = await startTestServer(plugin, serverOptions);
  const results = [];
  for (const runtime of server.agents) {
    results.push(...(await runPluginSuites(plugin, runtime, { timeoutMs })).results);
  }
  return toPluginTestReport(results);
}
