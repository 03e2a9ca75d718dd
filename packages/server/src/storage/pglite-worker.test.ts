import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from './create-database';

async function settings(database: Database) {
  const { rows } = await sql<{
    name: string;
    setting: string;
  }>`select name, current_setting(name) as setting from (values ('shared_buffers'), ('max_connections')) as v(name)`.execute(
    database.db,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.setting]));
}

describe('the embedded database thread', () => {
  let dataDir: string;
  let database: Database | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'parley-pglite-'));
  });

  afterEach(async () => {
    await database?.close();
    database = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates a new folder, opens it with the small settings, and reopens it with its data', async () => {
    const folder = join(dataDir, 'new');
    database = createDatabase({ kind: 'pglite', dataDir: folder });
    await database.migrate();
    expect(existsSync(join(folder, 'PG_VERSION'))).toBe(true);
    expect(await settings(database)).toEqual({ shared_buffers: '4MB', max_connections: '8' });
    await sql`create table kept (value text)`.execute(database.db);
    await sql`insert into kept values ('still here')`.execute(database.db);
    await database.sync();
    await database.close();

    database = createDatabase({ kind: 'pglite', dataDir: folder });
    expect(await settings(database)).toEqual({ shared_buffers: '4MB', max_connections: '8' });
    const { rows } = await sql<{ value: string }>`select value from kept`.execute(database.db);
    expect(rows).toEqual([{ value: 'still here' }]);
  }, 180_000);

  it('reports a folder it cannot create as a failed query, not a crash', async () => {
    // A file where the database folder's PG_VERSION check and initdb expect a directory.
    const folder = join(dataDir, 'PG_VERSION-is-missing');
    const { writeFile, mkdir } = await import('node:fs/promises');
    await mkdir(folder);
    await writeFile(join(folder, 'base'), 'not a directory');
    database = createDatabase({ kind: 'pglite', dataDir: folder });
    await expect(sql`select 1`.execute(database.db)).rejects.toThrow(
      /creating the database failed/,
    );
  }, 120_000);

  it('runs in memory with the same settings', async () => {
    database = createDatabase({ kind: 'pglite', dataDir: 'memory' });
    expect(await settings(database)).toEqual({ shared_buffers: '4MB', max_connections: '8' });
  });
});
