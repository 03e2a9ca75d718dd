import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from './config-error';
import { loadConfig, toServerOptions } from './load-config';

let cwd: string;

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-config-'));
  await writeFile(join(cwd, 'ada.json'), JSON.stringify({ name: 'Ada', settings: { A: '1' } }));
  await writeFile(join(cwd, 'bob.json'), JSON.stringify({ name: 'Bob' }));
  await writeFile(join(cwd, 'broken.json'), '{"name": ');
  await writeFile(join(cwd, 'nameless.json'), '{"bio": "no name"}');
});

async function configError(env: Record<string, string>, argv: string[] = []) {
  const error = await loadConfig({ env, argv, cwd }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message).not.toContain('\n');
  return message;
}

describe('loadConfig', () => {
  it('has the documented defaults', async () => {
    const config = await loadConfig({ env: {}, cwd });
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: join(cwd, '.parley'),
      databaseUrl: undefined,
      authToken: undefined,
      logLevel: 'info',
      characters: [],
    });
  });

  it('names a port that is not a number', async () => {
    expect(await configError({ PORT: 'abc' })).toBe(
      'PORT must be a whole number from 0 to 65535, got "abc"',
    );
    expect(await configError({ PORT: '70000' })).toMatch(/PORT/);
  });

  it('names a limit or timeout that is not a positive whole number', async () => {
    expect(await configError({ SYNC_TIMEOUT_MS: '0' })).toBe(
      'SYNC_TIMEOUT_MS must be a positive whole number, got "0"',
    );
    expect(await configError({ UPLOAD_LIMIT: '10MB' })).toMatch(/^UPLOAD_LIMIT/);
  });

  it('maps DATABASE_URL to PostgreSQL and otherwise to PGlite in DATA_DIR', async () => {
    const embedded = toServerOptions(await loadConfig({ env: { DATA_DIR: 'data' }, cwd }));
    expect(embedded.database).toEqual({ kind: 'pglite', dataDir: join(cwd, 'data') });
    const url = 'postgres://postgres@127.0.0.1:5432/test';
    const external = toServerOptions(await loadConfig({ env: { DATABASE_URL: url }, cwd }));
    expect(external.database).toEqual({ kind: 'postgres', url });
  });

  it('names a bad log level and a bad database URL', async () => {
    expect(await configError({ LOG_LEVEL: 'loud' })).toMatch(/^LOG_LEVEL must be one of/);
    expect(await configError({ DATABASE_URL: 'mysql://x' })).toMatch(/postgres:\/\//);
    expect(await configError({ DATABASE_URL: 'not a url' })).toBe(
      'DATABASE_URL is not a valid URL',
    );
  });

  it('names an unreadable, invalid or incomplete character file', async () => {
    expect(await configError({ CHARACTERS: 'missing.json' })).toMatch(
      /missing\.json cannot be read \(ENOENT\)/,
    );
    expect(await configError({}, ['--character', 'broken.json'])).toMatch(
      /broken\.json is not valid JSON/,
    );
    expect(await configError({}, ['--character', 'nameless.json'])).toMatch(/nameless\.json: name/);
  });

  it('rejects unknown flags', async () => {
    expect(await configError({}, ['--nope'])).toMatch(/nope/);
  });

  it('reads characters from CHARACTERS, and --character flags win over it', async () => {
    const fromEnv = await loadConfig({ env: { CHARACTERS: 'ada.json, bob.json' }, cwd });
    expect(fromEnv.characters.map((c) => c.name)).toEqual(['Ada', 'Bob']);
    const fromFlags = await loadConfig({
      env: { CHARACTERS: 'ada.json' },
      argv: ['--character', 'bob.json'],
      cwd,
    });
    expect(fromFlags.characters.map((c) => c.name)).toEqual(['Bob']);
  });

  it('reads .env, with the process environment taking precedence', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parley-dotenv-'));
    await writeFile(
      join(dir, '.env'),
      'PORT=4000\nLOG_LEVEL=debug\n# comment\nSERVER_AUTH_TOKEN="s3cret"\n',
    );
    const config = await loadConfig({ env: { LOG_LEVEL: 'warn' }, cwd: dir });
    expect(config.port).toBe(4000);
    expect(config.logLevel).toBe('warn');
    expect(config.authToken).toBe('s3cret');
    expect(config.env.PORT).toBe('4000');
  });
});
