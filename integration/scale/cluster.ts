import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The PostgreSQL server the tests use: TEST_DATABASE_URL, else the machine's local one. */
export const POSTGRES_ADMIN_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The Redis server of the Redis run: TEST_REDIS_URL, else the machine's local one. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const NODE_SCRIPT = fileURLToPath(new URL('./scale-node.mjs', import.meta.url));

/** A database of its own for one run, dropped by `dispose`. */
export async function createRunDatabase(): Promise<{ url: string; dispose(): Promise<void> }> {
  const name = `parley_scale_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async dispose() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** Undefined when `url`'s PostgreSQL answers, else why not. */
export async function postgresUnavailable(): Promise<string | undefined> {
  const client = new pg.Client({
    connectionString: POSTGRES_ADMIN_URL,
    connectionTimeoutMillis: 2000,
  });
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    return `PostgreSQL at ${POSTGRES_ADMIN_URL} did not answer (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Why the tests of `what` cannot run here (PostgreSQL does not answer), said aloud: a silent skip would hide
 * an untested promise. Undefined when they can.
 */
export async function skipWithoutPostgres(what: string): Promise<string | undefined> {
  const reason = await postgresUnavailable();
  // eslint-disable-next-line no-console
  if (reason) console.warn(`skipping ${what}: ${reason}`);
  return reason;
}

/** One server process of the cluster. */
export interface ClusterNode {
  readonly url: string;
  readonly child: ChildProcess;
  /** Ends the process: SIGTERM (graceful) by default, or SIGKILL (a crash). */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

/** Starts one server process (scale-node.mjs) and resolves once it serves. */
export async function startNode(env: {
  DATABASE_URL: string;
  REDIS_URL?: string;
  /** Any other Parley setting (the guards' TRUST_PROXY, ALLOWED_HOSTS…). */
  [setting: string]: string | undefined;
}): Promise<ClusterNode> {
  const child = spawn(process.execPath, [NODE_SCRIPT], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => {
    stderr = (stderr + data.toString()).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (data: Buffer) => {
      stdout += data.toString();
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) =>
      reject(new Error(`server process exited with ${code} before serving:\n${stderr}`)),
    );
  });
  let exited: Promise<unknown> | undefined;
  return {
    url,
    child,
    stop(signal = 'SIGTERM') {
      exited ??= child.exitCode === null ? once(child, 'exit') : Promise.resolve();
      child.kill(signal);
      return exited.then(() => undefined);
    },
  };
}

/** Starts `count` processes on one database (in parallel: migrations take a lock). */
export function startCluster(
  count: number,
  env: { DATABASE_URL: string; REDIS_URL?: string; [setting: string]: string | undefined },
): Promise<ClusterNode[]> {
  return Promise.all(Array.from({ length: count }, () => startNode(env)));
}
