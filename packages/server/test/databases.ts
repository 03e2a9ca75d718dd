import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { DatabaseLocation } from '../src/storage/create-database';

/** A database for one test, removed by `dispose`. */
export interface TestDatabase {
  name: string;
  location: DatabaseLocation;
  dispose(): Promise<void>;
}

/** A fresh copy of the migrated PGlite template. */
export async function copyPGliteTemplate(): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-test-'));
  await cp(inject('pgliteTemplate'), dir, { recursive: true });
  return {
    name: 'pglite',
    location: { kind: 'pglite', dataDir: dir },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The PostgreSQL server tests use: TEST_DATABASE_URL, else the machine's local one. */
export const POSTGRES_ADMIN_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let available: Promise<string | undefined> | undefined;

/** Undefined when PostgreSQL answers; otherwise why it does not (printed by the skipping test). */
export function postgresUnavailableReason(): Promise<string | undefined> {
  available ??= (async () => {
    const client = new pg.Client({
      connectionString: POSTGRES_ADMIN_URL,
      connectionTimeoutMillis: 2000,
    });
    try {
      await client.connect();
      await client.query('select 1');
      return undefined;
    } catch (error) {
      return `PostgreSQL at ${POSTGRES_ADMIN_URL} did not answer (${(error as Error).message})`;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return available;
}

/** A new, empty database on the PostgreSQL server, dropped by `dispose`. */
export async function createPostgresDatabase(): Promise<TestDatabase> {
  const name = `parley_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name: 'postgres',
    location: { kind: 'postgres', url: url.toString(), poolSize: 4 },
    async dispose() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** The database kinds every storage test runs against, PostgreSQL only when it answers. */
export async function databaseKinds(): Promise<
  { name: string; create: () => Promise<TestDatabase>; skip?: string }[]
> {
  const reason = await postgresUnavailableReason();
  // The skip reason is printed on purpose: a silent skip would hide an untested database.
  // eslint-disable-next-line no-console
  if (reason) console.warn(`skipping PostgreSQL tests: ${reason}`);
  return [
    { name: 'pglite', create: copyPGliteTemplate },
    { name: 'postgres', create: createPostgresDatabase, skip: reason },
  ];
}
