/** The outcome of one plugin test. */
export interface PluginTestResult {
  /** Name of the suite the test belongs to. */
  suite: string;
  /** Name of the test. */
  test: string;
  /** Name of the agent whose runtime ran the test, when the runner knows several. */
  agent?: string;
  ok: boolean;
  /** Why the test failed: the thrown error's message, or a timeout notice. */
  error?: string;
  durationMs: number;
}

/** What a run of plugin test suites gives back. */
export interface PluginTestReport {
  passed: number;
  failed: number;
  /** One entry per test, in the order they ran. */
  results: PluginTestResult[];
}

/** Sums results into a report. */
export function toPluginTestReport(results: PluginTestResult[]): PluginTestReport {
  const passed = results.filter((result) => result.ok).length;
  return { passed, failed: results.length - passed, results };
}
