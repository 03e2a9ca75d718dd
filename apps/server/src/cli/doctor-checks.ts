import { access, constants } from 'node:fs/promises';
import { lookup } from 'node:dns/promises';
import { createServer as createNetServer } from 'node:net';
import { createLogger, createServer } from '@parley/server';
import {
  createdbCommand,
  databaseCreationAllowed,
  isMissingDatabase,
  maskSetting,
  type ParleyConfig,
} from '@parley/server/config';
import { probeDatabaseLocation, probeRedis } from '@parley/server/health';
import type { AppServerOptions } from './build-server-options';
import { describeStartupError } from './describe-startup-error';
import type { DoctorResult } from './doctor-check';

/** How long the database and Redis checks wait for an answer. */
const DATABASE_TIMEOUT_MS = 8000;
const REDIS_TIMEOUT_MS = 5000;

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
      if (error.code === 'EADDRINUSE') {
        void runningParley(config).then((running) =>
          resolve(
            running
              ? { status: 'ok', message: `${where} is served by a running Parley (${running})` }
              : {
                  status: 'fail',
                  message: `${where} is already in use`,
                  fix: 'stop the process using it, or set PORT to a free port',
                },
          ),
        );
        return;
      }
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

/**
 * Whether a Parley server answers on `HOST`:`PORT`, and if so its readiness in words (`ready`, or why not).
 * Read-only: one GET of its open readiness route (with the server token, when set, so that it says why).
 */
async function runningParley(config: ParleyConfig): Promise<string | undefined> {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  try {
    // With a token set, readiness says why it is not ready only to a request that sends it.
    const response = await fetch(`${base}/api/server/ready`, {
      headers: config.authToken ? { 'x-api-key': config.authToken } : {},
      signal: AbortSignal.timeout(3000),
    });
    const body = (await response.json()) as {
      success?: boolean;
      data?: { status?: string };
      error?: { message?: string };
    };
    if (body.success === true && body.data?.status === 'ready') return 'ready';
    if (body.success === false && body.error?.message) return body.error.message;
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * The database answers and its migrations have run. The cause of a failure is said as `parley start` says it
 * (3D000: the database does not exist…). Beside a running server on the embedded database (its folder locked),
 * the folder is not opened: the running server's readiness answers for it.
 */
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
  let check: Awaited<ReturnType<typeof probeDatabaseLocation>>;
  try {
    check = await probeDatabaseLocation(
      config.databaseUrl
        ? { kind: 'postgres', url: config.databaseUrl }
        : { kind: 'pglite', dataDir: config.dataDir },
      DATABASE_TIMEOUT_MS,
    );
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'CONFLICT') throw error;
    // The folder is locked by a running server: ask it instead of opening the files.
    const running = await runningParley(config);
    if (running === 'ready') {
      return {
        status: 'ok',
        message: `${setting} is in use by the running server on PORT ${config.port}, which is ready`,
      };
    }
    return {
      status: running ? 'fail' : 'warn',
      message: running
        ? `${setting} is in use by the running server on PORT ${config.port}: ${running}`
        : describeStartupError(error, config),
      fix: running
        ? "see the running server's log"
        : 'check it with the server that uses this DATA_DIR, or stop that server',
    };
  }
  if (check.ok) return { status: 'ok', message: `${setting} is reachable and migrated` };
  if (
    config.databaseUrl &&
    isMissingDatabase(check.cause) &&
    databaseCreationAllowed(config.settings.DATABASE_CREATE, config.databaseUrl)
  ) {
    return {
      status: 'warn',
      message: `${setting}: the database does not exist yet (3D000)`,
      fix: `nothing to do: start creates it (DATABASE_CREATE=${config.settings.DATABASE_CREATE}); or create it yourself with \`${createdbCommand(config.databaseUrl)}\``,
    };
  }
  if (check.detail?.includes('pending')) {
    return {
      status: 'warn',
      message: `${setting} is reachable; ${check.detail}`,
      fix: 'nothing to do: start migrates it (or run parley start once)',
    };
  }
  return {
    status: 'fail',
    // The same line as `parley start` for the same cause.
    message:
      check.cause !== undefined
        ? describeStartupError(check.cause, config)
        : `${setting} is ${check.detail ?? 'not ready'}`,
    fix: config.databaseUrl
      ? 'start PostgreSQL, or correct DATABASE_URL (user, password, host, port, database)'
      : 'stop the server that uses this DATA_DIR, or set DATA_DIR to another folder',
  };
}

/** Redis answers a PING, when `REDIS_URL` is set (rooms shared through Redis). */
export async function checkRedis(config: ParleyConfig): Promise<DoctorResult> {
  if (!config.redisUrl) {
    return {
      status: 'ok',
      message: 'REDIS_URL not set (rooms shared through the database, if any)',
    };
  }
  try {
    await probeRedis(config.redisUrl, REDIS_TIMEOUT_MS);
    return {
      status: 'ok',
      message: `REDIS_URL ${maskSetting('REDIS_URL', config.redisUrl)} answers`,
    };
  } catch (error) {
    return {
      status: 'fail',
      // The same line as `parley start` for the same cause.
      message: describeStartupError(error, config),
      fix: 'start Redis, or correct REDIS_URL (or unset it to share rooms through PostgreSQL)',
    };
  }
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
    // Rooms in this process only: the plugin check needs neither Redis nor PostgreSQL (checked above).
    cluster: undefined,
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
