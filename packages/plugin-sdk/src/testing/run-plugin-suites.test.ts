import { describe, expect, it } from 'vitest';
import { definePlugin } from '../plugin/plugin';
import type { AgentRuntime } from '../plugin/runtime';
import { runPluginSuites } from './run-plugin-suites';

const runtime = {
  agentId: '00000000-0000-4000-8000-000000000001',
  character: { name: 'Tester' },
  getSetting: (key: string) => (key === 'GREETING' ? 'hello' : undefined),
} as unknown as AgentRuntime;

describe('runPluginSuites', () => {
  it('runs every test of every suite in order with the runtime, and counts passes and failures', async () => {
    const seen: string[] = [];
    const plugin = definePlugin({
      name: 'sample',
      tests: [
        {
          name: 'first',
          tests: [
            {
              name: 'reads a setting',
              fn: (rt) => void seen.push(`a:${rt.getSetting('GREETING')}`),
            },
            {
              name: 'throws',
              fn: () => {
                seen.push('b');
                throw new Error('boom');
              },
            },
          ],
        },
        {
          name: 'second',
          tests: [
            { name: 'rejects', fn: () => Promise.reject(new TypeError('nope')) },
            {
              name: 'resolves',
              fn: () => {
                seen.push('d');
                return Promise.resolve();
              },
            },
          ],
        },
      ],
    });

    const report = await runPluginSuites(plugin, runtime);

    expect(seen).toEqual(['a:hello', 'b', 'd']);
    expect(report.passed).toBe(2);
    expect(report.failed).toBe(2);
    expect(
      report.results.map(({ suite, test, ok, error, agent }) => ({
        suite,
        test,
        ok,
        error,
        agent,
      })),
    ).toEqual([
      { suite: 'first', test: 'reads a setting', ok: true, error: undefined, agent: 'Tester' },
      { suite: 'first', test: 'throws', ok: false, error: 'boom', agent: 'Tester' },
      { suite: 'second', test: 'rejects', ok: false, error: 'nope', agent: 'Tester' },
      { suite: 'second', test: 'resolves', ok: true, error: undefined, agent: 'Tester' },
    ]);
    for (const result of report.results) expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('fails a test that outlives the timeout and goes on with the next one', async () => {
    let lateRejection = false;
    const plugin = definePlugin({
      name: 'slow',
      tests: [
        {
          name: 'timing',
          tests: [
            {
              name: 'never settles in time',
              fn: () =>
                new Promise((_resolve, reject) =>
                  setTimeout(() => {
                    lateRejection = true;
                    reject(new Error('too late'));
                  }, 200),
                ),
            },
            { name: 'quick', fn: () => undefined },
          ],
        },
      ],
    });

    const report = await runPluginSuites(plugin, runtime, { timeoutMs: 20 });

    expect(report.results[0]).toMatchObject({ ok: false, error: 'timed out after 20 ms' });
    expect(report.results[1]).toMatchObject({ ok: true });
    // The late rejection of the timed-out test must not surface as an unhandled rejection.
    await expect.poll(() => lateRejection).toBe(true);
  });

  it('describes thrown non-errors and reports progress', async () => {
    const progress: string[] = [];
    const plugin = definePlugin({
      name: 'odd',
      tests: [
        {
          name: 'odd throws',
          tests: [
            {
              name: 'string',
              fn: () => {
                // eslint-disable-next-line @typescript-eslint/only-throw-error -- plugins may throw anything
                throw 'plain string';
              },
            },
            {
              name: 'object',
              // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- as above
              fn: () => Promise.reject({ code: 42 }),
            },
          ],
        },
      ],
    });

    const report = await runPluginSuites(plugin, runtime, {
      onResult: (result) => progress.push(result.test),
    });

    expect(report.results.map((result) => result.error)).toEqual([
      'plain string',
      'non-error thrown: {"code":42}',
    ]);
    expect(progress).toEqual(['string', 'object']);
  });

  it('gives an empty report for a plugin without tests', async () => {
    expect(await runPluginSuites(definePlugin({ name: 'bare' }), runtime)).toEqual({
      passed: 0,
      failed: 0,
      results: [],
    });
  });
});
