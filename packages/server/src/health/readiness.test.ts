import { describe, expect, it } from 'vitest';
import { createDatabase } from '../storage/create-database';
import { checkReadiness, databaseProbe } from './readiness';

describe('databaseProbe', () => {
  it('is not ready before the migrations, ready after them', async () => {
    const database = createDatabase({ kind: 'pglite', dataDir: 'memory' });
    try {
      const probe = databaseProbe(database.db, 60_000);
      expect(await probe()).toMatchObject({ name: 'database', ok: false });
      expect((await probe()).detail).toMatch(/migration\(s\) pending/);
      await database.migrate();
      expect(await probe()).toEqual({ name: 'database', ok: true });
    } finally {
      await database.close();
    }
  });

  it('reports an unreachable PostgreSQL server without its address or password', async () => {
    const database = createDatabase({
      kind: 'postgres',
      url: 'postgres://postgres:hunter2@127.0.0.1:1/test',
    });
    try {
      const report = await checkReadiness([databaseProbe(database.db)]);
      expect(report).toEqual({
        ready: false,
        checks: [{ name: 'database', ok: false, detail: 'unreachable' }],
      });
    } finally {
      await database.close();
    }
  });
});
