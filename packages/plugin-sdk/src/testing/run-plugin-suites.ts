import type { Plugin, PluginTest } from '../plugin/plugin';
import type { AgentRuntime } from '../plugin/runtime';
import {
  toPluginTestReport,
  type PluginTestReport,
  type PluginTestResult,
} from './plugin-test-report';

/** Options of {@link runPluginSuites}. */
export interface RunPluginSuitesOptions {
  /** How long one test may run before it fails (default 15000 ms). */
  timeoutMs?: number;
  /** Called after each test, for progress output. */
  onResult?: (result: PluginTestResult) => void;
}

/** The default per-test timeout, in milliseconds. */
export const DEFAULT_PLUGIN_TEST_TIMEOUT_MS = 15_000;

class TestTimeoutError extends Error {
  override readonly name = 'TestTimeoutError';
}

function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string'
    ? error
    : `non-error thrown: ${JSON.stringify(error) ?? String(error)}`;
}

async function runTest(test: PluginTest, runtime: AgentRuntime, timeoutMs: number): Promise<void> {
  // Starting inside then() turns a synchronous throw into a rejection.
  const running = Promise.resolve().then(() => test.fn(runtime));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new TestTimeoutError(`timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([running, timedOut]);
  } finally {
    clearTimeout(timer);
    // A test that timed out may still fail later; that must not become an unhandled rejection.
    running.catch(() => undefined);
  }
}

/**
 * Runs a plugin's `tests` suites against one runtime, one test at a time, in order. A test fails when it throws,
 * rejects or outlives the timeout; a failure never stops the tests after it.
 *
 * @example
 * const report = await runPluginSuites(plugin, runtime);
 * if (report.failed > 0) process.exitCode = 1;
 */
export async function runPluginSuites(
  plugin: Plugin,
  runtime: AgentRuntime,
  options: RunPluginSuitesOptions = {},
): Promise<PluginTestReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PLUGIN_TEST_TIMEOUT_MS;
  const results: PluginTestResult[] = [];
  for (const suite of plugin.tests ?? []) {
    for (const test of suite.tests) {
      const started = performance.now();
      let error: string | undefined;
      try {
        await runTest(test, runtime, timeoutMs);
      } catch (thrown) {
        error = describeFailure(thrown);
      }
      const result: PluginTestResult = {
        suite: suite.name,
        test: test.name,
        agent: runtime.character.name,
        ok: error === undefined,
        durationMs: Math.round(performance.now() - started),
      };
      if (error !== undefined) result.error = error;
      results.push(result);
      options.onResult?.(result);
    }
  }
  return toPluginTestReport(results);
}
