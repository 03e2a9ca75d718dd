import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer as createNetServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputOf, spawnParley } from '../test/parley-child';

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-deps-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Runs the CLI to its end (the test's timeout is the bound: each run must end by itself). */
function run(args: string[], env: Record<string, string>) {
  const child = spawnParley(cwd, args, {
    PLUGINS: 'none',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'warn',
    DATA_DIR: join(cwd, `data-${Math.random().toString(36).slice(2)}`),
    ...env,
  });
  children.push(child);
  return outputOf(child);
}

/** A loopback port that refuses connections (nothing listens there). */
async function refusingPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A loopback port that accepts connections and never answers (a hung service). */
async function silentPort(): Promise<{ port: number; server: Server }> {
  const sockets: Socket[] = [];
  const server = createNetServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** Whether the test PostgreSQL takes connections (the app has no driver of its own to ask it more). */
const postgresUp = await new Promise<boolean>((resolve) => {
  const admin = new URL(ADMIN_URL);
  const socket = connect(Number(admin.port || 5432), admin.hostname);
  socket.setTimeout(3000, () => {
    socket.destroy();
    resolve(false);
  });
  socket.once('connect', () => {
    socket.destroy();
    resolve(true);
  });
  socket.once('error', () => resolve(false));
});
if (!postgresUp) {
  // Printed on purpose: a silent skip would hide an untested promise.
  console.warn(`skipping the missing-database test: PostgreSQL at ${ADMIN_URL} does not answer`);
}

describe('a dependency that is down at start: one line naming it and the cause, and a non-zero exit', () => {
  it('Redis refusing connections', async () => {
    const port = await refusingPort();
    const { code, stderr } = await run([], { PORT: '0', REDIS_URL: `redis://127.0.0.1:${port}` });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      `parley: REDIS_URL redis://127.0.0.1:${port} refused the connection (ECONNREFUSED); start Redis or fix the URL`,
    ]);
  }, 60_000);

  it('Redis accepting connections but never answering', async () => {
    const silent = await silentPort();
    try {
      const { code, stderr } = await run([], {
        PORT: '0',
        REDIS_URL: `redis://127.0.0.1:${silent.port}`,
      });
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([
        `parley: REDIS_URL redis://127.0.0.1:${silent.port} did not answer in time (ETIMEDOUT); start Redis or fix the URL`,
      ]);
    } finally {
      silent.server.close();
    }
  }, 60_000);

  it('PostgreSQL accepting connections but never answering: that one line, no warning before it', async () => {
    const silent = await silentPort();
    try {
      const url = `postgres://postgres@127.0.0.1:${silent.port}/parley`;
      const { code, stdout, stderr } = await run([], { PORT: '0', DATABASE_URL: url });
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([
        `parley: DATABASE_URL ${url} does not answer (timeout); check PostgreSQL and the network`,
      ]);
      // Logged at `warn` and above: the rooms' cluster adapter said nothing of the same silent database.
      expect(stdout).toBe('');
    } finally {
      silent.server.close();
    }
  }, 60_000);

  it.skipIf(!postgresUp)(
    'a PostgreSQL database that does not exist, start not allowed to create it: start and doctor say the same, with the command that creates it',
    async () => {
      const url = new URL(ADMIN_URL);
      url.pathname = `/parley_missing_${process.pid}`;
      const env = { PORT: '0', DATABASE_URL: url.toString(), DATABASE_CREATE: 'false' };
      const command = `createdb -h ${url.hostname} -p ${url.port || '5432'} -U ${url.username} parley_missing_${process.pid}`;
      const line = `DATABASE_URL ${url.toString()}: the database does not exist (3D000); create it with \`${command}\`, or set DATABASE_CREATE=true to let start create it`;
      const started = await run([], env);
      expect(started.code).toBe(1);
      expect(started.stderr.trim().split('\n')).toEqual([`parley: ${line}`]);
      const doctor = await run(['doctor'], env);
      expect(doctor.stdout).toContain(`FAIL ${line}`);
      expect(doctor.code).toBe(1);
    },
    60_000,
  );

  it.skipIf(!postgresUp)(
    'doctor on a loopback URL whose database is missing: a warning that start creates it, and no database made by doctor',
    async () => {
      const url = new URL(ADMIN_URL);
      url.pathname = `/parley_doctor_missing_${process.pid}`;
      const doctor = await run(['doctor'], { PORT: '0', DATABASE_URL: url.toString() });
      expect(doctor.stdout).toContain(
        `warn DATABASE_URL ${url.toString()}: the database does not exist yet (3D000)`,
      );
      expect(doctor.stdout).toContain('nothing to do: start creates it (DATABASE_CREATE=auto)');
      // Doctor only reads: asked again, the database is still missing.
      const again = await run(['doctor'], { PORT: '0', DATABASE_URL: url.toString() });
      expect(again.stdout).toContain('the database does not exist yet (3D000)');
    },
    60_000,
  );
});

describe('parley doctor with dependencies down or in use', () => {
  it('checks Redis with a timeout, says what start says, and always exits', async () => {
    const silent = await silentPort();
    const refused = await refusingPort();
    try {
      for (const [port, cause] of [
        [silent.port, 'did not answer in time (ETIMEDOUT)'],
        [refused, 'refused the connection (ECONNREFUSED)'],
      ] as const) {
        const { code, stdout } = await run(['doctor'], {
          PORT: '0',
          REDIS_URL: `redis://127.0.0.1:${port}`,
        });
        expect(stdout).toContain(`FAIL REDIS_URL redis://127.0.0.1:${port} ${cause}`);
        // The plugin check does not need Redis: it passes.
        expect(stdout).toContain('ok   PLUGINS: 0 loaded');
        expect(stdout).toContain('1 check failed.');
        expect(code).toBe(1);
      }
    } finally {
      silent.server.close();
    }
  }, 90_000);

  it('runs its read-only checks beside a running server on the same DATA_DIR and PORT', async () => {
    const dataDir = join(cwd, 'shared-data');
    const port = String(await refusingPort());
    const server = spawnParley(
      cwd,
      [],
      { PLUGINS: 'none', LOG_FORMAT: 'json', PORT: port, DATA_DIR: dataDir },
      'ignore',
    );
    children.push(server);
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        server.stdout.on('data', (data: Buffer) => {
          seen += data.toString();
          if (seen.includes('"chat"')) resolve();
        });
        void exited.then(() => reject(new Error('the server exited before listening')));
      });
      const { code, stdout } = await run(['doctor'], { PORT: port, DATA_DIR: dataDir });
      expect(stdout).toContain(
        `ok   PORT ${port} on HOST 127.0.0.1 is served by a running Parley (ready)`,
      );
      expect(stdout).toMatch(
        new RegExp(
          `ok   DATA_DIR .*shared-data \\(embedded PGlite\\) is in use by the running server on PORT ${port}, which is ready`,
        ),
      );
      expect(stdout).toContain('All checks passed.');
      expect(code).toBe(0);
      // Doctor left the running server alone: it still answers.
      expect((await fetch(`http://127.0.0.1:${port}/api/server/ready`)).status).toBe(200);
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  }, 90_000);
});
