import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The root README's operator example, step by step as written, against its own PostgreSQL database. */
const README = fileURLToPath(new URL('../../../../README.md', import.meta.url));
const LAUNCHER = fileURLToPath(new URL('../../bin/start.mjs', import.meta.url));
const run = promisify(execFile);
const database = `parley_readme_${randomBytes(4).toString('hex')}`;

function postgresAnswers(): boolean {
  try {
    execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-c', 'select 1'], {
      stdio: 'ignore',
      timeout: 10_000,
    });
    return true;
  } catch {
    return false;
  }
}
const havePostgres = postgresAnswers();
if (!havePostgres)
  process.stderr.write('README operator example skipped: no PostgreSQL on 127.0.0.1:5432\n');

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Runs one SQL command against the test server's maintenance database. */
const psql = (command: string) =>
  run('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-c', command]);

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-readme-operator-'));
  if (havePostgres) await psql(`create database ${database}`);
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
  if (havePostgres) await psql(`drop database if exists ${database}`);
});

describe.skipIf(!havePostgres)('README: for operators', () => {
  it('writes the character, starts with the settings shown, and answers the curl', async () => {
    const text = await readFile(README, 'utf8');
    const section = text.slice(text.indexOf('## For operators'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const lines = block.split('\n');
    const heredocEnd = lines.indexOf('JSON');
    const startAt = lines.findIndex((line) => line.includes('npx -y pnpm@10 start'));
    expect(heredocEnd).toBeGreaterThan(0);
    expect(startAt).toBeGreaterThan(heredocEnd);

    // Step 1 as written: the character file.
    await run('sh', ['-c', lines.slice(0, heredocEnd + 1).join('\n')], { cwd });

    // Step 2: the settings and arguments as written; only the port and the database name are this test's own,
    // and `npx -y pnpm@10 start` is the script it runs (built already, so without the build).
    const port = String(await freePort());
    const command = lines
      .slice(startAt - 1, startAt + 1)
      .join(' ')
      .replace(/\\\s+/g, ' ');
    const env = Object.fromEntries(
      [...command.matchAll(/([A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name, value]),
    ) as Record<string, string>;
    const args = command
      .slice(command.indexOf('npx -y pnpm@10 start') + 'npx -y pnpm@10 start'.length)
      .trim()
      .split(/\s+/);
    expect(env).toMatchObject({ PORT: '8080', SERVER_AUTH_TOKEN: 's3cret' });
    const server = spawn(process.execPath, [LAUNCHER, ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        ...env,
        PORT: port,
        DATABASE_URL: (env.DATABASE_URL ?? '').replace(/\/parley$/, `/${database}`),
        PARLEY_SKIP_BUILD: '1',
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => server.once('close', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: server.stdout }).on('line', (line) => {
          if ((JSON.parse(line) as { chat?: string }).chat) resolve();
        });
        void exited.then(() => reject(new Error('the server ended before listening')));
      });

      // Step 3 as written, at this test's port.
      const curl = lines.find((line) => line.startsWith('curl')) ?? '';
      const { stdout } = await run('sh', ['-c', curl.replace(':8080', `:${port}`)], { cwd });
      expect(JSON.parse(stdout)).toMatchObject({
        success: true,
        data: { agents: [{ name: 'Ada' }] },
      });
    } finally {
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});
