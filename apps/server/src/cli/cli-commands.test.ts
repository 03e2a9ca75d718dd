import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createNetServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNOWN_SETTINGS, PLUGIN_SETTINGS } from '@parley/server/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputOf, spawnParley } from '../test/parley-child';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-cli-commands-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}) {
  return outputOf(spawnParley(cwd, args, { PLUGINS: 'none', ...env }));
}

/** A port some other process holds, for as long as the test runs. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, server };
}

describe('parley --help, --version and unknown words', () => {
  it('prints the usage with every command, and exits 0', async () => {
    for (const args of [['--help'], ['-h'], ['help'], ['start', '--help']]) {
      const { code, stdout } = await run(args);
      expect(stdout).toMatch(/^parley \S+: the Parley agent server/);
      for (const command of [
        'start',
        'test',
        'doctor',
        'reembed',
        '--version',
        '--character PATH',
      ]) {
        expect(stdout).toContain(command);
      }
      expect(code).toBe(0);
    }
  });

  it('lists every setting of the settings schema, by group (webhooks, proxy and rate limits included)', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    const plugins: readonly string[] = PLUGIN_SETTINGS;
    const missing = KNOWN_SETTINGS.filter(
      (name) => !plugins.includes(name) && !new RegExp(`\\b${name}\\b`).test(stdout),
    );
    expect(missing).toEqual([]);
    expect(stdout).toMatch(/^ {2}Webhooks +WEBHOOK_RETRY_DELAYS,/m);
    expect(stdout).toMatch(/^ {2}Proxy, hosts and rate limits +TRUST_PROXY,/m);
  });

  it('prints the version of the app', async () => {
    const { version } = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    const { code, stdout } = await run(['--version']);
    expect(stdout).toBe(`parley ${version}\n`);
    expect(code).toBe(0);
  });

  it('refuses an unknown command or flag with one line, without starting anything', async () => {
    const word = await run(['strat']);
    expect(word.stderr).toBe(
      'parley: unknown command "strat" (commands: start, test, doctor, reply, reembed, help; see parley --help)\n',
    );
    expect(word.code).toBe(2);
    const flag = await run(['start', '--nope'], { PORT: '0', DATA_DIR: join(cwd, 'never') });
    expect(flag.stderr).toMatch(/^parley: .*--nope/);
    expect(flag.code).toBe(1);
  });
});

describe('parley doctor', () => {
  it('passes on a good setup, one readable line per check', async () => {
    const { code, stdout } = await run(['doctor'], {
      PORT: '0',
      DATA_DIR: join(cwd, 'good-data'),
      PLUGINS: 'webhook',
      // What `npx -y pnpm@10 start` (bin/start.mjs) and the build put in the environment: not mistyped settings.
      PARLEY_SKIP_BUILD: '1',
      PARLEY_NO_DTS: '1',
    });
    expect(stdout).toContain('ok   settings are valid');
    expect(stdout).not.toContain('PARLEY_');
    expect(stdout).toContain('ok   HOST 127.0.0.1 resolves');
    expect(stdout).toContain('ok   PORT 0 on HOST 127.0.0.1 is free');
    expect(stdout).toMatch(/warn DATA_DIR .*good-data \(embedded PGlite\) does not exist yet/);
    expect(stdout).toContain('ok   TEE_MODE OFF');
    expect(stdout).toContain('ok   PLUGINS: 1 loaded (webhook), 2 routes, no conflict');
    expect(stdout).toContain('ok   MODEL_PROVIDER eliza');
    expect(stdout).toContain('All checks passed.');
    expect(code).toBe(0);
  });

  it('names each problem of a bad setup with its value and a fix, secrets hidden', async () => {
    const { port, server } = await occupiedPort();
    try {
      const { code, stdout } = await run(['doctor'], {
        PORT: String(port),
        PORTT: '1',
        DATABASE_URL: 'postgres://postgres:hunter2@127.0.0.1:1/parley',
        MODEL_PROVIDER: 'openai',
        MODEL: 'llama3.2',
        OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
        OPENAI_API_KEY: 'sk-very-secret',
        TEE_MODE: 'DOCKER',
        WALLET_SECRET_SALT: 'a-long-enough-salt',
        DSTACK_SIMULATOR_ENDPOINT: 'http://127.0.0.1:1',
      });
      expect(stdout).toContain('warn PORTT is not a Parley setting; did you mean PORT?');
      expect(stdout).toContain(`FAIL PORT ${port} on HOST 127.0.0.1 is already in use`);
      expect(stdout).toContain(
        'FAIL DATABASE_URL postgres://postgres:****@127.0.0.1:1/parley is unreachable',
      );
      expect(stdout).toContain(
        'FAIL TEE_MODE DOCKER: DSTACK_SIMULATOR_ENDPOINT http://127.0.0.1:1',
      );
      expect(stdout).toContain('ok   WALLET_SECRET_SALT is set (value hidden)');
      expect(stdout).toContain('FAIL OPENAI_BASE_URL http://127.0.0.1:1/v1 does not answer');
      expect(stdout.match(/^ {5}fix: /gm)?.length).toBeGreaterThanOrEqual(5);
      expect(stdout).toContain('checks failed.');
      for (const secret of ['hunter2', 'sk-very-secret', 'a-long-enough-salt']) {
        expect(stdout).not.toContain(secret);
      }
      expect(code).toBe(1);
    } finally {
      server.close();
    }
  });

  it('stops at a bad setting, naming it', async () => {
    const { code, stdout } = await run(['doctor'], { PORT: 'eighty' });
    expect(stdout).toContain('FAIL PORT must be a whole number from 0 to 65535, got "eighty"');
    expect(code).toBe(1);
  });
});

describe('start-up errors name the setting and its value', () => {
  it('a port in use', async () => {
    const { port, server } = await occupiedPort();
    try {
      const { code, stderr } = await run([], {
        PORT: String(port),
        DATA_DIR: join(cwd, 'busy'),
      });
      expect(stderr).toContain(`parley: PORT ${port} on HOST 127.0.0.1 is already in use`);
      expect(code).toBe(1);
    } finally {
      server.close();
    }
  });

  it('an unreachable database, its password hidden', async () => {
    const { code, stderr } = await run([], {
      PORT: '0',
      DATABASE_URL: 'postgres://postgres:hunter2@127.0.0.1:1/parley',
    });
    expect(stderr).toContain(
      'parley: DATABASE_URL postgres://postgres:****@127.0.0.1:1/parley is unreachable (ECONNREFUSED)',
    );
    expect(stderr).not.toContain('hunter2');
    expect(code).toBe(1);
  });

  it('a character file with an unknown key, naming the key and the file', async () => {
    await writeFile(join(cwd, 'typo.json'), JSON.stringify({ name: 'Ty', sytem: 'Be brief.' }));
    const { code, stderr } = await run(['--character', 'typo.json'], { PORT: '0' });
    expect(stderr).toContain(
      `parley: character file ${join(cwd, 'typo.json')}: unknown key "sytem"`,
    );
    expect(stderr).toContain('did you mean "system"?');
    expect(code).toBe(1);
  });

  it('a host that does not resolve', async () => {
    const { code, stderr } = await run([], {
      PORT: '0',
      HOST: 'nowhere.invalid',
      DATA_DIR: join(cwd, 'nowhere'),
    });
    expect(stderr).toContain('parley: HOST "nowhere.invalid" does not resolve');
    expect(code).toBe(1);
  });
});
