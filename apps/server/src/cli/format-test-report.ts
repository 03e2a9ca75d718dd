import type { PluginTestResult } from '@parley/plugin-sdk/testing';

/** One plugin's results for one agent. */
export interface PluginRun {
  agent: string;
  plugin: string;
  results: PluginTestResult[];
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The line printed for one test as it finishes. */
export function formatTestLine(result: PluginTestResult): string {
  const mark = result.ok ? 'ok  ' : 'FAIL';
  const line = `    ${mark} ${result.suite} › ${result.test} (${result.durationMs} ms)`;
  return result.ok ? line : `${line}\n         ${result.error ?? 'failed'}`;
}

/** The closing summary: totals, then every failure again so it is not lost in the scroll-back. */
export function formatTestSummary(runs: readonly PluginRun[]): string {
  const failures = runs.flatMap((run) =>
    run.results.filter((result) => !result.ok).map((result) => ({ run, result })),
  );
  const total = runs.reduce((sum, run) => sum + run.results.length, 0);
  const lines = [''];
  if (total === 0) {
    lines.push('No plugin tests found (no loaded plugin declares `tests`).');
    return lines.join('\n');
  }
  for (const { run, result } of failures) {
    lines.push(
      `FAIL ${run.agent} › ${run.plugin} › ${result.suite} › ${result.test}: ${result.error ?? 'failed'}`,
    );
  }
  if (failures.length > 0) lines.push('');
  const plugins = new Set(runs.map((run) => run.plugin)).size;
  const agents = new Set(runs.map((run) => run.agent)).size;
  lines.push(
    `${total - failures.length} passed, ${failures.length} failed ` +
      `(${count(total, 'test')}, ${count(plugins, 'plugin')}, ${count(agents, 'agent')})`,
  );
  return lines.join('\n');
}
