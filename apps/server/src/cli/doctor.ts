import { describeGuards, loadConfig, type ParleyConfig } from '@parley/server/config';
import { buildServerOptions, type AppServerOptions } from './build-server-options';
import { describeStartupError } from './describe-startup-error';
import { formatDoctorLine, runCheck, type DoctorResult } from './doctor-check';
import {
  checkDatabase,
  checkHost,
  checkModel,
  checkPlugins,
  checkPort,
  checkRedis,
  checkTee,
} from './doctor-checks';
import { checkMcp } from './doctor-mcp';

/** No check waits longer than this (each has a shorter deadline of its own); doctor always finishes. */
const CHECK_TIMEOUT_MS = 20_000;

/**
 * `parley doctor`: checks the configuration and what it points at — settings, port, host, database, TEE, salt,
 * plugins and routes, model, Redis, the characters' MCP servers — printing one line per check with a fix for each problem. Resolves with the
 * exit code: 1 when a check failed, else 0.
 *
 * Every check is read-only, so doctor runs beside a running server: the port and the embedded database's
 * folder in use by a running Parley are reported through its readiness instead of being opened; plugins are
 * loaded on an in-memory database and a port of their own.
 */
export async function runDoctor(argv: readonly string[]): Promise<number> {
  const print = (result: DoctorResult) => process.stdout.write(`${formatDoctorLine(result)}\n`);
  let config: ParleyConfig;
  let built: AppServerOptions;
  try {
    config = await loadConfig({ env: process.env, argv, cwd: process.cwd() });
    print({ status: 'ok', message: 'settings are valid' });
    // What became of each elizaOS plugin the characters list (replaced by Parley's own, or the model's settings).
    for (const note of config.notes) print({ status: 'ok', message: note });
    for (const warning of config.warnings) {
      print({ status: 'warn', message: warning, fix: 'rename or remove it' });
    }
    built = await buildServerOptions(config, process.cwd());
  } catch (error) {
    print({
      status: 'fail',
      message: describeStartupError(error),
      fix: 'correct the setting or file named above (see .env.example)',
    });
    return 1;
  }
  const results: DoctorResult[] = [];
  const run = async (label: string, check: () => Promise<DoctorResult | DoctorResult[]>) => {
    const outcome = await runCheck(
      async () => {
        const value = await check();
        return Array.isArray(value) ? { status: 'ok' as const, message: '', all: value } : value;
      },
      CHECK_TIMEOUT_MS,
      label,
    );
    const all = (outcome as DoctorResult & { all?: DoctorResult[] }).all ?? [outcome];
    for (const result of all) {
      results.push(result);
      print(result);
    }
  };
  await run('HOST', () => checkHost(config));
  await run('PORT', () => checkPort(config));
  await run('guards', () => Promise.resolve(describeGuards(config.settings)));
  await run('database', () => checkDatabase(config));
  await run('REDIS_URL', () => checkRedis(config));
  await run('TEE', () => checkTee(config));
  await run('PLUGINS', () => checkPlugins(config, built));
  await run('model', () => checkModel(config));
  await run('MCP', () => checkMcp(config));
  const failed = results.filter((result) => result.status === 'fail').length;
  process.stdout.write(
    failed === 0
      ? '\nAll checks passed.\n'
      : `\n${failed} check${failed === 1 ? '' : 's'} failed.\n`,
  );
  return failed === 0 ? 0 : 1;
}
