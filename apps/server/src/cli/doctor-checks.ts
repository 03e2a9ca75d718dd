import { access, constants } from 'node:fs/promises';
import { lookup } from 'node:dns/promises';
import { createServer as createNetServer } from 'node:net';
import { createLogger, createServer } from '@parley/server';
import { maskSetting, type ParleyConfig } from '@parley/server/config';
import { probeDatabaseLocation } from '@parley/server/health';
import type { AppServerOptions } from './build-server-options';
import { describeStartupError } from './describe-startup-error';
import type { DoctorResult } from './doctor-check';

/** `HOST` resolves to an address of some machine. */
export async function checkHost(config: ParleyConfig): Promise<DoctorResult> {
  try {
    const { address } = await lookup(config.host);
    return { status: 'ok', message: `HOST ${config.host} resolves (${address})` };
  } catch (error) {
    return {
      status: 'fail',
      message: `HOST "${config.host}" does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      fix: 'set HOST to an address of this machine, e.g. 127.0.0.1 or 0.0.0.0',
    };
  }
}

/** `PORT` is free on `HOST`. */
export function checkPort(config: ParleyConfig): Promise<DoctorResult> {
  const where = `PORT ${config.port} on HOST ${config.host}`;
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      resolve({
        status: 'fail',
        message:
          error.code === 'EADDRINUSE'
            ? `${where} is already in use`
            : `${where} cannot be bound (${error.code ?? error.message})`,
        fix:
          error.code === 'EADDRINUSE'
            ? 'stop the process using it, or set PORT to a free port'
            : 'set HOST to an address of this machine and PORT above 1023',
      });
    });
    probe.listen(config.port, config.host, () => {
      probe.close(() => resolve({ status: 'ok', message: `${where} is free` }));
    });
  });
}

/** The database answers and its migrations have run. */
export async function checkDatabase(config: ParleyConfig): Promise<DoctorResult> {
  const setting = config.databaseUrl
    ? `DATABASE_URL ${maskSetting('DATABASE_URL', config.databaseUrl)}`
    : `DATA_DIR ${config.dataDir} (embedded PGlite)`;
  if (!config.databaseUrl) {
    try {
      await access(config.dataDir, constants.W_OK);
    } catch {
      return {
        status: 'warn',
        message: `${setting} does not exist yet`,
        fix: 'nothing to do: the first start creates and migrates it',
      };
    }
  }
  const check = await probeDatabaseLocation(
    config.databaseUrl
      ? { kind: 'postgres', url: config.databaseUrl }
      : { kind: 'pglite', dataDir: config.dataDir },
  );
  if (check.ok) return { status: 'ok', message: `${setting} is reachable and migrated` };
  if (check.detail?.includes('pending')) {
    return {
      status: 'warn',
      message: `${setting} is reachable; ${check.detail}`,
      fix: 'nothing to do: start migrates it (or run parley start once)',
    };
  }
  return {
    status: 'fail',
    message: `${setting} is ${check.detail ?? 'not ready'}`,
    fix: config.databaseUrl
      ? 'start PostgreSQL, or correct DATABASE_URL (user, password, host, port, database)'
      : 'stop the server that uses this DATA_DIR, or set DATA_DIR to another folder',
  };
}

/** The TEE endpoint answers, when a TEE mode is set; the salt is present (never shown). */
export async function checkTee(config: ParleyConfig): Promise<DoctorResult[]> {
  const { mode, endpoint } = config.tee;
  if (mode === 'OFF') return [{ status: 'ok', message: 'TEE_MODE OFF (no attestation)' }];
  const salt: DoctorResult = {
    status: 'ok',
    message: 'WALLET_SECRET_SALT is set (value hidden)',
  };
  if (endpoint === undefined) {
    return [salt, { status: 'ok', message: `TEE_MODE ${mode}: built-in simulator` }];
  }
  if (endpoint.startsWith('/')) {
    try {
      await access(endpoint, constants.R_OK | constants.W_OK);
      return [salt, { status: 'ok', message: `TEE_MODE ${mode}: ${endpoint} is there` }];
    } catch {
      return [
        salt,
        {
          status: 'fail',
          message: `TEE_MODE ${mode}: the dstack socket ${endpoint} is missing`,
          fix:
            mode === 'PRODUCTION'
              ? 'run inside a dstack CVM with the socket mounted, or set TEE_MODE=LOCAL for development'
              : 'start the simulator, or correct DSTACK_SIMULATOR_ENDPOINT',
        },
      ];
    }
  }
  try {
    await fetch(endpoint, { signal: AbortSignal.timeout(5_000) });
    return [salt, { status: 'ok', message: `TEE_MODE ${mode}: ${endpoint} answers` }];
  } catch {
    return [
      salt,
      {
        status: 'fail',
        message: `TEE_MODE ${mode}: DSTACK_SIMULATOR_ENDPOINT ${endpoint} does not answer`,
        fix: 'start the dstack simulator there, or correct DSTACK_SIMULATOR_ENDPOINT',
      },
    ];
  }
}

/** The model endpoint answers (the offline ELIZA model always does). */
export async function checkModel(config: ParleyConfig): Promise<DoctorResult> {
  const model = config.model;
  if (model.provider === 'eliza') {
    return { status: 'ok', message: 'MODEL_PROVIDER eliza (offline, no endpoint needed)' };
  }
  const url = `${model.baseUrl.replace(/\/$/, '')}/models`;
  try {
    const response = await fetch(url, {
      headers: model.apiKey ? { authorization: `Bearer ${model.apiKey}` } : {},
      signal: AbortSignal.timeout(5_000),
    });
    if (response.status === 401 || response.status === 403) {
      return {
        status: 'fail',
        message: `OPENAI_BASE_URL ${model.baseUrl} refused the key (HTTP ${response.status})`,
        fix: 'set OPENAI_API_KEY to a valid key for this endpoint',
      };
    }
    return {
      status: 'ok',
      message: `OPENAI_BASE_URL ${model.baseUrl} answers (HTTP ${response.status}); MODEL ${model.model}`,
    };
  } catch {
    return {
      status: 'fail',
      message: `OPENAI_BASE_URL ${model.baseUrl} does not answer`,
      fix: 'start the model server (e.g. ollama serve), or correct OPENAI_BASE_URL',
    };
  }
}

/**
 * Plugins load and their routes mount without a conflict: the server is started as `parley test` does (port 0,
 * in-memory database) and stopped.
 */
export async function checkPlugins(
  config: ParleyConfig,
  built: AppServerOptions,
): Promise<DoctorResult> {
  const server = createServer({
    ...built.options,
    port: 0,
    host: '127.0.0.1',
    database: { kind: 'pglite', dataDir: 'memory' },
    logger: createLogger('silent'),
  });
  try {
    await server.start();
    const routes = built.plugins.reduce((sum, plugin) => sum + (plugin.routes?.length ?? 0), 0);
    const names = built.plugins.map((plugin) => plugin.name).join(', ') || 'none';
    return {
      status: 'ok',
      message: `PLUGINS: ${built.plugins.length} loaded (${names}), ${routes} routes, no conflict`,
    };
  } catch (error) {
    return {
      status: 'fail',
      message: `PLUGINS: ${describeStartupError(error, config)}`,
      fix: 'fix the plugin or route named above, or leave it out of PLUGINS',
    };
  } finally {
    await server.stop().catch(() => undefined);
  }
}
