import pg from 'pg';
import type { Logger } from 'pino';

/** PostgreSQL's `invalid_catalog_name`: the database the URL names does not exist. */
export const MISSING_DATABASE = '3D000';

/** Whether `error` (or its cause) is PostgreSQL saying the database does not exist. */
export function isMissingDatabase(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if ((current as { code?: unknown }).code === MISSING_DATABASE) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Host names that are this machine: a database there is the operator's own. */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;

/**
 * Whether start-up may create a missing database (`DATABASE_CREATE`): `true` always, `false` never, `auto` (the
 * default) when the URL's host is this machine (loopback or a Unix socket): a first local start works with
 * nothing else to do, while a shared or managed server's databases are its operator's to create.
 */
export function databaseCreationAllowed(setting: 'auto' | 'true' | 'false', url: string): boolean {
  if (setting !== 'auto') return setting === 'true';
  try {
    const { host } = targetOf(url);
    return host.startsWith('/') || LOOPBACK.test(host);
  } catch {
    return false;
  }
}

/** Where a PostgreSQL URL points, read as the driver reads it (its own decoding, `?host=` and `?user=`). */
function targetOf(url: string): { database: string; host: string; port: number; user: string } {
  // Constructing a client parses the URL and connects to nothing.
  const { database, host, port, user } = new pg.Client({ connectionString: url });
  return { database: database ?? '', host: host ?? '', port: port ?? 5432, user: user ?? '' };
}

/** The database name a PostgreSQL URL names, as the driver connects to it. */
export function databaseName(url: string): string {
  return targetOf(url).database;
}

/** A shell word, quoted when it needs to be. */
const shellWord = (word: string) =>
  /^[\w.@:/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

/** The one command that creates the database `url` names (no password in it: `createdb` asks for one). */
export function createdbCommand(url: string): string {
  const { database, host, port, user } = targetOf(url);
  const words = ['createdb'];
  if (host) words.push('-h', host);
  words.push('-p', String(port));
  if (user) words.push('-U', user);
  words.push(database);
  return words.map(shellWord).join(' ');
}

/** Errors that mean another process created the same database at the same moment. */
const ALREADY_CREATED = new Set(['42P04', '23505']);

/**
 * Creates the database `url` names, connected as the URL's user to the server's maintenance database
 * (`postgres`, else `template1`). Another process creating it at the same time is not an error. Throws what
 * PostgreSQL throws otherwise (`42501`: the user may not create databases).
 *
 * @returns whether this call created it.
 */
export async function createMissingDatabase(
  url: string,
  options: { connectionTimeoutMs: number; logger?: Logger },
): Promise<boolean> {
  const name = databaseName(url);
  let lastError: unknown;
  for (const maintenance of ['postgres', 'template1']) {
    const target = new URL(url);
    target.pathname = `/${maintenance}`;
    const client = new pg.Client({
      connectionString: target.toString(),
      connectionTimeoutMillis: options.connectionTimeoutMs,
    });
    // A connection lost mid-way fails the query below; it must not crash the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      lastError = error;
      await client.end().catch(() => undefined);
      if (isMissingDatabase(error)) continue;
      throw error;
    }
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      options.logger?.info({ database: name }, 'created the database DATABASE_URL names');
      return true;
    } catch (error) {
      if (ALREADY_CREATED.has(String((error as { code?: unknown }).code))) return false;
      throw error;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw lastError;
}
