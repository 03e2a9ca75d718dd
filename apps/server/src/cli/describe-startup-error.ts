import {
  ConfigError,
  createdbCommand,
  maskSetting,
  type ParleyConfig,
} from '@parley/server/config';

type StartupError = NodeJS.ErrnoException & { hostname?: string; port?: number; address?: string };

/** PostgreSQL error classes that mean the server was reached but refused the connection or the database. */
const POSTGRES_CONNECTION_CODES: Record<string, string> = {
  '28P01': 'the password was refused',
  '28000': 'the user is not allowed to connect',
  '3D000': 'the database does not exist',
};

function databaseSetting(config: ParleyConfig | undefined): string {
  if (config?.databaseUrl) return `DATABASE_URL ${maskSetting('DATABASE_URL', config.databaseUrl)}`;
  return `DATA_DIR ${config?.dataDir ?? '.parley'}`;
}

/**
 * One line for an operator saying why the server could not start, naming the setting and its value (secrets
 * hidden): `PORT 3000 on HOST 127.0.0.1 is already in use`, `HOST "nowhere.invalid" does not resolve`,
 * `DATABASE_URL postgres://u:****@127.0.0.1:1/db is unreachable (ECONNREFUSED)`.
 */
export function describeStartupError(error: unknown, config?: ParleyConfig): string {
  if (error instanceof ConfigError) return error.message;
  const dependency = error as {
    name?: unknown;
    setting?: unknown;
    value?: unknown;
    cause?: unknown;
  };
  if (dependency?.name === 'DependencyError' && typeof dependency.setting === 'string') {
    // Redis (the room adapter): one line naming the setting, its value and the cause.
    const value = maskSetting(dependency.setting, String(dependency.value));
    const cause = (error as Error).message.slice(dependency.setting.length + 1);
    return `${dependency.setting} ${value} ${cause}; start Redis or fix the URL`;
  }
  const failure = (error ?? {}) as StartupError;
  const code = failure.code;
  const where = config ? `PORT ${config.port} on HOST ${config.host}` : 'the port';
  if (failure.syscall === 'listen' || code === 'EADDRINUSE') {
    if (code === 'EADDRINUSE') return `${where} is already in use (set PORT to a free port)`;
    if (code === 'EACCES') return `${where}: permission denied (use a PORT above 1023)`;
    if (code === 'EADDRNOTAVAIL') return `HOST "${config?.host}" is not an address of this machine`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return `HOST "${config?.host}" does not resolve (set HOST to an address or a resolvable name)`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    if (config && failure.hostname === config.host) {
      return `HOST "${config.host}" does not resolve (set HOST to an address or a resolvable name)`;
    }
    return `${databaseSetting(config)}: its host does not resolve (${code})`;
  }
  if (code && ['ECONNREFUSED', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH'].includes(code)) {
    return `${databaseSetting(config)} is unreachable (${code}); start PostgreSQL or fix the URL`;
  }
  if (code === '3D000' && config?.databaseUrl) {
    // Start creates it when DATABASE_CREATE lets it; here it did not: the one command that does.
    return `${databaseSetting(config)}: the database does not exist (3D000); create it with \`${createdbCommand(config.databaseUrl)}\`, or set DATABASE_CREATE=true to let start create it`;
  }
  if (code === '42501' && config?.databaseUrl && /create database/i.test(failure.message)) {
    return `${databaseSetting(config)}: the database does not exist and this user may not create it (42501); run \`${createdbCommand(config.databaseUrl)}\` as a user who may (e.g. -U postgres)`;
  }
  if (code && POSTGRES_CONNECTION_CODES[code]) {
    return `${databaseSetting(config)}: ${POSTGRES_CONNECTION_CODES[code]} (${code})`;
  }
  const message = error instanceof Error ? error.message : String(error);
  // pg's own words for a database that accepts connections but does not answer, or drops them.
  if (
    /timeout exceeded when trying to connect|Query read timeout|connection timeout/i.test(message)
  ) {
    return `${databaseSetting(config)} does not answer (timeout); check PostgreSQL and the network`;
  }
  if (/Connection terminated/i.test(message)) {
    return `${databaseSetting(config)} dropped the connection; check PostgreSQL and the URL`;
  }
  if (config && /data.?dir|pglite|lock/i.test(message))
    return `${databaseSetting(config)}: ${message}`;
  return message;
}
