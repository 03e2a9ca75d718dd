import { describe, expect, it } from 'vitest';
import { createdbCommand, databaseCreationAllowed, isMissingDatabase } from './missing-database';

describe('DATABASE_CREATE and the createdb command', () => {
  it('auto creates only on this machine: loopback names and addresses, a Unix socket', () => {
    const allowed = [
      'postgres://u@127.0.0.1:5432/parley',
      'postgres://u@localhost/parley',
      'postgres://u@127.8.9.10/parley',
      'postgres://u@[::1]:5432/parley',
      'postgres://u@/parley?host=/var/run/postgresql',
    ];
    const refused = [
      'postgres://u@db.example.com/parley',
      'postgres://u@10.0.0.5/parley',
      'postgres://u@localhost.example.com/parley',
      'postgres://u@127.0.0.1.nip.io/parley',
      'postgres://u@[::2]/parley',
    ];
    for (const url of allowed) expect(databaseCreationAllowed('auto', url), url).toBe(true);
    for (const url of refused) expect(databaseCreationAllowed('auto', url), url).toBe(false);
    expect(databaseCreationAllowed('true', refused[0]!)).toBe(true);
    expect(databaseCreationAllowed('false', allowed[0]!)).toBe(false);
  });

  it('says the command as the driver reads the URL: host, port, user, name; never the password', () => {
    expect(createdbCommand('postgres://parley:hunter2@db.example.com:6543/prod_db')).toBe(
      'createdb -h db.example.com -p 6543 -U parley prod_db',
    );
    // A name a shell would split or run is quoted.
    const command = createdbCommand("postgres://u:pw@127.0.0.1/it's%20mine");
    expect(command).toBe(`createdb -h 127.0.0.1 -p 5432 -U u 'it'\\''s mine'`);
    expect(command).not.toContain('pw');
  });

  it('recognises 3D000 itself or as a cause', () => {
    expect(isMissingDatabase({ code: '3D000' })).toBe(true);
    expect(isMissingDatabase(new Error('x', { cause: { code: '3D000' } }))).toBe(true);
    expect(isMissingDatabase({ code: '28P01' })).toBe(false);
    expect(isMissingDatabase(undefined)).toBe(false);
  });
});
