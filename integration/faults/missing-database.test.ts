import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * An operator's first deploy: `DATABASE_URL` names a database that does not exist yet (3D000). On this machine's
 * PostgreSQL the app creates it (`DATABASE_CREATE=auto`); where it may not, it says the one command to run.
 * Against the real PostgreSQL at TEST_DATABASE_URL, with random database names dropped afterwards.
 */

const CLI = fileURLToPath(new URL('../../apps/server/dist/main.js', import.meta.url));
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
const postgresUp = await admin.connect().then(
  () => true,
  () => false,
);
// Printed on purpose: a silent skip would hide an untested promise.
// eslint-disable-next-line no-console
if (!postgresUp) console.warn(`skipping the missing-database tests: ${ADMIN_URL} does not answer`);

let folder: string;
const databases: string[] = [];
const roles: string[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'parley-missing-db-'));
});

afterAll(async () => {
  if (postgresUp) {
    for (const name of databases)
      await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`);
    for (const role of roles)
      await admin.query(`DROP ROLE IF EXISTS ${admin.escapeIdentifier(role)}`);
    await admin.end();
  }
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** A database name no run used before, remembered for dropping. */
function freshName(prefix = 'parley_first_deploy'): string {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  databases.push(name);
  return name;
}

/** The URL of `database` on the test server, as `user`. */
function urlOf(database: string, user?: string): string {
  const url = new URL(ADMIN_URL);
  // The URL encodes what a path must (quotes, spaces); `;` stays as it is, as an operator would write it.
  url.pathname = `/${database}`;
  if (user) url.username = user;
  return url.toString();
}

async function exists(name: string): Promise<boolean> {
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return rowCount === 1;
}

interface Run {
  code: number | null;
  output: string;
  stderr: string;
}

/**
 * Starts the built app with `env`; resolves once it listens (then stops it with SIGTERM) or once it exits by
 * itself, with its exit code and everything it wrote.
 */
function startApp(env: Record<string, string>): Promise<Run & { listened: boolean }> {
  const child = spawn(process.execPath, [CLI], {
    cwd: folder,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      PLUGINS: 'none',
      LOG_FORMAT: 'json',
      DATA_DIR: join(folder, `data-${randomBytes(4).toString('hex')}`),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stderr = '';
  let listened = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (!listened && output.includes('is listening on')) {
      listened = true;
      child.kill('SIGTERM');
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ code, output, stderr, listened })),
  );
}

describe.skipIf(!postgresUp)('a DATABASE_URL whose database does not exist', () => {
  it('on this machine (DATABASE_CREATE=auto): two first starts released together both come up; it is created once and migrated', async () => {
    const name = freshName();
    const url = urlOf(name);
    const runs = await Promise.all([
      startApp({ DATABASE_URL: url }),
      startApp({ DATABASE_URL: url }),
    ]);
    for (const run of runs) {
      expect(run.listened, run.stderr).toBe(true);
      expect(run.code).toBe(0);
    }
    expect(await exists(name)).toBe(true);
    // Exactly one of them created it; the other found it made (or made at the same moment).
    const created = runs.filter((run) =>
      run.output.includes('created the database DATABASE_URL names'),
    );
    expect(created).toHaveLength(1);
    // And migrated it: the tables are there.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rowCount } = await db.query(
        "SELECT 1 FROM information_schema.tables WHERE table_name = 'kysely_migration'",
      );
      expect(rowCount).toBe(1);
    } finally {
      await db.end();
    }
  }, 120_000);

  it('DATABASE_CREATE=false: exit 1 with the one command that creates it; nothing is created', async () => {
    const name = freshName();
    const url = urlOf(name);
    const admin = new URL(ADMIN_URL);
    const run = await startApp({ DATABASE_URL: url, DATABASE_CREATE: 'false' });
    expect(run.listened).toBe(false);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `parley: DATABASE_URL ${url}: the database does not exist (3D000); create it with \`createdb -h ${admin.hostname} -p ${admin.port || '5432'} -U ${admin.username} ${name}\`, or set DATABASE_CREATE=true to let start create it`,
    ]);
    expect(await exists(name)).toBe(false);
  }, 60_000);

  it('a user who may not create databases: exit 1 saying so, with the command to run as one who may', async () => {
    const role = `parley_nocreate_${randomBytes(4).toString('hex')}`;
    roles.push(role);
    await admin.query(`CREATE ROLE ${admin.escapeIdentifier(role)} LOGIN NOCREATEDB`);
    const name = freshName();
    const url = urlOf(name, role);
    const run = await startApp({ DATABASE_URL: url });
    expect(run.listened).toBe(false);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^parley: DATABASE_URL .*: the database does not exist and this user may not create it \\(42501\\); run \`createdb .*-U ${role} ${name}\` as a user who may`,
      ),
    );
    expect(await exists(name)).toBe(false);
  }, 60_000);

  it('a database name made to break out of the statement is created under exactly that name, nothing else runs', async () => {
    const marker = `parley_injected_${randomBytes(4).toString('hex')}`;
    databases.push(marker);
    const name = freshName(`x"; CREATE DATABASE ${marker}; --`);
    const url = urlOf(name);
    // The driver reads the name back whole: the statement would break out without quoting.
    expect(new pg.Client({ connectionString: url }).database).toBe(name);
    const run = await startApp({ DATABASE_URL: url });
    expect(run.listened, run.stderr).toBe(true);
    expect(await exists(name)).toBe(true);
    expect(await exists(marker)).toBe(false);
  }, 60_000);
});
