import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/config-error';
import { PROJECT_VARIABLES } from './find-mistyped-settings';
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
      logFormat: undefined,
      requestLogLevel: 'info',
      plugins: [],
      warnings: [],
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
    // A loopback PostgreSQL may have its database created at start (DATABASE_CREATE=auto); a remote one may not.
    expect(external.database).toEqual({ kind: 'postgres', url, createIfMissing: true });
    expect(external.cluster).toBeUndefined(); // createServer shares rooms through PostgreSQL itself
    const remote = 'postgres://postgres@db.example.com:5432/test';
    const far = toServerOptions(await loadConfig({ env: { DATABASE_URL: remote }, cwd }));
    expect(far.database).toEqual({ kind: 'postgres', url: remote, createIfMissing: false });
  });

  it("loads PGlite's pgvector with MEMORY_VECTOR_INDEX=hnsw, and refuses another value", async () => {
    const hnsw = toServerOptions(
      await loadConfig({ env: { DATA_DIR: 'data', MEMORY_VECTOR_INDEX: 'hnsw' }, cwd }),
    );
    expect(hnsw.database).toEqual({ kind: 'pglite', dataDir: join(cwd, 'data'), pgvector: true });
    await expect(loadConfig({ env: { MEMORY_VECTOR_INDEX: 'ivfflat' }, cwd })).rejects.toThrow(
      /MEMORY_VECTOR_INDEX/,
    );
  });

  it('shares rooms through Redis with REDIS_URL', async () => {
    const redis = 'redis://127.0.0.1:6379';
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', REDIS_URL: redis };
    expect(toServerOptions(await loadConfig({ env, cwd })).cluster).toEqual({
      kind: 'redis',
      url: redis,
    });
    expect(await configError({ REDIS_URL: 'http://127.0.0.1:6379' })).toMatch(/^REDIS_URL must be/);
  });

  it('names a bad log level and a bad database URL, hiding its password', async () => {
    expect(await configError({ LOG_LEVEL: 'loud' })).toMatch(/^LOG_LEVEL must be one of/);
    expect(await configError({ DATABASE_URL: 'mysql://u:hunter2@x/db' })).toBe(
      'DATABASE_URL must be a postgres:// URL, got "mysql://u:****@x/db"',
    );
    expect(await configError({ DATABASE_URL: 'not a url' })).toBe(
      'DATABASE_URL must be a postgres:// URL, got "not a url"',
    );
  });

  it('fills the TEE and model options from the same settings, TEE off by default', async () => {
    const plain = await loadConfig({ env: {}, cwd });
    expect(plain.tee).toEqual({
      mode: 'OFF',
      vendor: 'phala',
      salt: undefined,
      endpoint: undefined,
    });
    expect(plain.model).toEqual({ provider: 'eliza' });
    expect(toServerOptions(plain).tee.mode).toBe('OFF');
    const local = await loadConfig({
      env: {
        TEE_MODE: 'local',
        WALLET_SECRET_SALT: 'a-long-enough-salt',
        MODEL_PROVIDER: 'openai',
        MODEL: 'llama3.2',
        OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      },
      cwd,
    });
    expect(local.tee).toMatchObject({ mode: 'LOCAL', salt: 'a-long-enough-salt' });
    expect(local.model).toEqual({
      provider: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'llama3.2',
      timeoutMs: 60_000,
      callsTools: true,
      includeUsage: true,
    });
    expect(toServerOptions(local).model?.name).not.toBe('eliza');
  });

  it('reads the webhook retry schedule, private targets and deadline, and names bad ones', async () => {
    const defaults = toServerOptions(await loadConfig({ env: {}, cwd })).webhooks;
    expect(defaults).toEqual({
      retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000],
      privateTargets: [],
      timeoutMs: 10_000,
    });
    const set = await loadConfig({
      env: {
        WEBHOOK_RETRY_DELAYS: '500ms, 2s,1m,1.5h',
        WEBHOOK_PRIVATE_TARGETS: 'hooks.internal, 10.0.0.0/8,::1',
        WEBHOOK_TIMEOUT_MS: '2500',
      },
      cwd,
    });
    expect(toServerOptions(set).webhooks).toEqual({
      retryDelaysMs: [500, 2000, 60_000, 5_400_000],
      privateTargets: ['hooks.internal', '10.0.0.0/8', '::1'],
      timeoutMs: 2500,
    });
    expect(
      toServerOptions(await loadConfig({ env: { WEBHOOK_RETRY_DELAYS: 'none' }, cwd })).webhooks
        ?.retryDelaysMs,
    ).toEqual([]);
    expect(await configError({ WEBHOOK_RETRY_DELAYS: '5s,soon' })).toMatch(
      /WEBHOOK_RETRY_DELAYS.*"soon"/,
    );
    expect(await configError({ WEBHOOK_RETRY_DELAYS: '8d' })).toMatch(/WEBHOOK_RETRY_DELAYS/);
    expect(await configError({ WEBHOOK_PRIVATE_TARGETS: '10.0.0.0/99' })).toMatch(
      /WEBHOOK_PRIVATE_TARGETS/,
    );
  });

  it('reads the stdio MCP commands allowed: unset any, `none` none, else those listed', async () => {
    const mcpOf = async (env: Record<string, string>) =>
      toServerOptions(await loadConfig({ env, cwd })).mcp;
    expect((await mcpOf({}))?.stdioCommands).toBeUndefined();
    expect((await mcpOf({ MCP_STDIO_COMMANDS: 'none' }))?.stdioCommands).toEqual([]);
    expect((await mcpOf({ MCP_STDIO_COMMANDS: 'npx, /usr/bin/node' }))?.stdioCommands).toEqual([
      'npx',
      '/usr/bin/node',
    ]);
  });

  it('never shows a secret in an error', async () => {
    const message = await configError({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: 'short' });
    expect(message).toBe('WALLET_SECRET_SALT must be 8 to 128 characters after trimming');
  });

  it('warns about settings that look mistyped, and only those', async () => {
    const config = await loadConfig({
      env: { PORTT: '8080', TEE_MOD: 'LOCAL', HOME: '/root', PATH: '/bin', DATABSE_URL: 'x' },
      cwd,
    });
    expect(config.warnings).toEqual([
      'PORTT is not a Parley setting; did you mean PORT?',
      'TEE_MOD is not a Parley setting; did you mean TEE_MODE?',
      'DATABSE_URL is not a Parley setting; did you mean DATABASE_URL?',
    ]);
  });

  it("does not warn about the variables the project's own scripts set or read", async () => {
    // Every PARLEY_ variable the start script and the build read, as written in them.
    const root = new URL('../../../../', import.meta.url);
    const scripts = await Promise.all(
      ['apps/server/bin/start.mjs', 'tsup.base.ts'].map((file) =>
        readFile(new URL(file, root), 'utf8'),
      ),
    );
    const names = [...new Set(scripts.join('\n').match(/\bPARLEY_[A-Z_]+\b/g))];
    expect(names).toEqual(expect.arrayContaining(['PARLEY_SKIP_BUILD', 'PARLEY_NO_DTS']));
    const env = Object.fromEntries([...names, ...PROJECT_VARIABLES].map((name) => [name, '1']));
    expect((await loadConfig({ env, cwd })).warnings).toEqual([]);
    // The prefix still catches a mistyped one.
    expect((await loadConfig({ env: { PARLEY_SKIP_BIULD: '1' }, cwd })).warnings).toHaveLength(1);
  });

  it('refuses a character file with an unknown key, naming the key and the file', async () => {
    await writeFile(join(cwd, 'typo.json'), JSON.stringify({ name: 'Ty', sytem: 'Be brief.' }));
    const message = await configError({}, ['--character', 'typo.json']);
    expect(message).toContain(join(cwd, 'typo.json'));
    expect(message).toContain('unknown key "sytem" (did you mean "system"?');
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

  it('reads characters from CHARACTERS and --character flags, both, each file once', async () => {
    const fromEnv = await loadConfig({ env: { CHARACTERS: 'ada.json, bob.json' }, cwd });
    expect(fromEnv.characters.map((c) => c.name)).toEqual(['Ada', 'Bob']);
    const fromFlags = await loadConfig({
      env: { CHARACTERS: 'ada.json' },
      argv: ['--character', 'bob.json'],
      cwd,
    });
    expect(fromFlags.characters.map((c) => c.name)).toEqual(['Ada', 'Bob']);
    const twice = await loadConfig({
      env: { CHARACTERS: 'ada.json' },
      argv: ['--character', 'ada.json'],
      cwd,
    });
    expect(twice.characters.map((c) => c.name)).toEqual(['Ada']);
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
