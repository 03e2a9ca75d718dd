import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { within } from './clients';

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));

/** A free loopback port. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Replaces every match of `pattern` (which must match `expected` times) through `replace`. */
function rewrite(
  text: string,
  pattern: RegExp,
  expected: number,
  replace: (...groups: string[]) => string,
) {
  const count = text.match(pattern)?.length ?? 0;
  if (count !== expected) {
    throw new Error(
      `deploy/nginx.conf changed: expected ${expected} matches of ${pattern}, found ${count}`,
    );
  }
  return text.replace(pattern, (_, ...groups: string[]) => replace(...groups));
}

/** nginx running deploy/nginx.conf in front of `backends`, as a process of the test's own. */
export interface TestNginx {
  /** The sticky entry (polling and websocket). */
  readonly stickyUrl: string;
  /** The round-robin entry (websocket-only clients). */
  readonly roundRobinUrl: string;
  stop(): Promise<void>;
}

/** Undefined when an nginx binary runs, else why not. */
export async function nginxUnavailable(): Promise<string | undefined> {
  const child = spawn('nginx', ['-v'], { stdio: 'ignore' });
  const [code] = (await once(child, 'exit').catch(() => [127])) as [number | null];
  return code === 0 ? undefined : 'nginx is not installed (.ci/run installs Debian nginx)';
}

/**
 * Starts nginx with deploy/nginx.conf and deploy/parley-proxy.conf, its upstreams pointed at `backends` (three
 * `http://127.0.0.1:PORT` addresses) and its two entries on free loopback ports, in a temporary prefix.
 */
export async function startNginx(backends: string[]): Promise<TestNginx> {
  const ports = backends.map((backend) => new URL(backend).port);
  const [stickyPort, roundRobinPort] = [await freePort(), await freePort()];
  let site = await readFile(join(DEPLOY, 'nginx.conf'), 'utf8');
  site = rewrite(site, /server 127\.0\.0\.1:300(\d)/g, 2 * ports.length, (index) => {
    return `server 127.0.0.1:${ports[Number(index) - 1]}`;
  });
  site = rewrite(site, /listen 80;/g, 1, () => `listen 127.0.0.1:${stickyPort};`);
  site = rewrite(site, /listen 8080;/g, 1, () => `listen 127.0.0.1:${roundRobinPort};`);

  const prefix = await mkdtemp(join(tmpdir(), 'parley-nginx-'));
  // nginx's workers may run as another user than the test (when it is root): let them in.
  await chmod(prefix, 0o755);
  for (const dir of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    await mkdir(join(prefix, dir), { mode: 0o777 });
    await chmod(join(prefix, dir), 0o777);
  }
  await writeFile(join(prefix, 'parley.conf'), site);
  await writeFile(
    join(prefix, 'parley-proxy.conf'),
    await readFile(join(DEPLOY, 'parley-proxy.conf'), 'utf8'),
  );
  await writeFile(
    join(prefix, 'nginx.conf'),
    [
      'worker_processes 1;',
      'daemon off;',
      'master_process on;',
      `pid ${join(prefix, 'nginx.pid')};`,
      `error_log ${join(prefix, 'error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (dir) => `  ${dir}_temp_path ${join(prefix, dir)};`,
      ),
      '  include parley.conf;',
      '}',
      '',
    ].join('\n'),
  );

  const child: ChildProcess = spawn(
    'nginx',
    ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
  const exited = once(child, 'exit');
  await within(
    Promise.race([
      waitForPort(stickyPort).then(() => waitForPort(roundRobinPort)),
      exited.then(async () => {
        const log = await readFile(join(prefix, 'error.log'), 'utf8').catch(() => '');
        throw new Error(`nginx exited: ${stderr}${log}`);
      }),
    ]),
    'nginx to listen',
  );
  return {
    stickyUrl: `http://127.0.0.1:${stickyPort}`,
    roundRobinUrl: `http://127.0.0.1:${roundRobinPort}`,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
