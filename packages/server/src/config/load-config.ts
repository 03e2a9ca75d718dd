import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs, parseEnv } from 'node:util';
import type { Character } from '@parley/plugin-sdk';
import type { LevelWithSilent } from 'pino';
import { loadCharacterFile } from '../agents/character';
import type { ServerOptions } from '../create-server';
import { LOG_LEVELS } from '../logger';
import { ConfigError } from './config-error';

/** The server configuration an operator sets through the environment and the command line. */
export interface ParleyConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  authToken: string | undefined;
  logLevel: LevelWithSilent;
  /** `SYNC_TIMEOUT_MS`: how long a sync channel message waits for the reply. */
  syncTimeoutMs: number;
  /** `ROUTE_TIMEOUT_MS`: plugin route handler timeout. */
  routeTimeoutMs: number;
  /** `BODY_LIMIT`: largest JSON body in bytes. */
  bodyLimit: number;
  /** `UPLOAD_LIMIT`: largest multipart upload in bytes. */
  uploadLimit: number;
  characters: Character[];
  /** The environment the config was read from (`.env` merged under the process environment). */
  env: Record<string, string | undefined>;
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535, got "${value}"`);
  }
  return port;
}

function parsePositiveInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number <= 0) {
    throw new ConfigError(`${name} must be a positive whole number, got "${value}"`);
  }
  return number;
}

function parseLogLevel(value: string | undefined): LevelWithSilent {
  if (value === undefined || value.trim() === '') return 'info';
  const level = value.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  }
  return level as LevelWithSilent;
}

function parseDatabaseUrl(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('DATABASE_URL is not a valid URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`DATABASE_URL must be a postgres:// URL, got ${url.protocol}//…`);
  }
  return value;
}

/**
 * Reads a `.env` file into a plain object. A missing file is an empty environment; an unreadable one is a
 * ConfigError.
 */
export async function readDotEnv(path: string): Promise<Record<string, string>> {
  try {
    return parseEnv(await readFile(path, 'utf8')) as Record<string, string>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(
      `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** Character file paths from `--character` flags, else from `CHARACTERS` (comma-separated). */
export function characterPaths(argv: readonly string[], env: Record<string, string | undefined>) {
  let flags: string[] = [];
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { character: { type: 'string', multiple: true } },
      allowPositionals: true,
      strict: true,
    });
    flags = values.character ?? [];
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  if (flags.length > 0) return flags;
  return (env.CHARACTERS ?? '')
    .split(',')
    .map((path) => path.trim())
    .filter((path) => path !== '');
}

/**
 * Builds the configuration from the environment, a `.env` file in `cwd` (the process environment wins) and the
 * command line. Every bad setting is a ConfigError with one line naming the problem.
 */
export async function loadConfig(input: {
  env: Record<string, string | undefined>;
  argv?: readonly string[];
  cwd?: string;
}): Promise<ParleyConfig> {
  const cwd = input.cwd ?? process.cwd();
  const env = { ...(await readDotEnv(resolve(cwd, '.env'))), ...input.env };
  const paths = characterPaths(input.argv ?? [], env);
  const characters: Character[] = [];
  for (const path of paths) characters.push(await loadCharacterFile(resolve(cwd, path)));
  return {
    port: parsePort(env.PORT),
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir: resolve(cwd, env.DATA_DIR?.trim() || '.parley'),
    databaseUrl: parseDatabaseUrl(env.DATABASE_URL),
    authToken: env.SERVER_AUTH_TOKEN?.trim() || undefined,
    logLevel: parseLogLevel(env.LOG_LEVEL),
    syncTimeoutMs: parsePositiveInteger('SYNC_TIMEOUT_MS', env.SYNC_TIMEOUT_MS, 60_000),
    routeTimeoutMs: parsePositiveInteger('ROUTE_TIMEOUT_MS', env.ROUTE_TIMEOUT_MS, 30_000),
    bodyLimit: parsePositiveInteger('BODY_LIMIT', env.BODY_LIMIT, 1024 * 1024),
    uploadLimit: parsePositiveInteger('UPLOAD_LIMIT', env.UPLOAD_LIMIT, 10 * 1024 * 1024),
    characters,
    env,
  };
}

/**
 * The server options a configuration stands for: everything but plugins, model and logger, which the app
 * chooses.
 */
export function toServerOptions(config: ParleyConfig): ServerOptions {
  return {
    port: config.port,
    host: config.host,
    characters: config.characters,
    env: config.env,
    authToken: config.authToken,
    database: config.databaseUrl
      ? { kind: 'postgres', url: config.databaseUrl }
      : { kind: 'pglite', dataDir: config.dataDir },
    syncTimeoutMs: config.syncTimeoutMs,
    routeTimeoutMs: config.routeTimeoutMs,
    bodyLimit: config.bodyLimit,
    uploadLimit: config.uploadLimit,
  };
}
