import { mkdtemp, rm } from 'node:fs/promises';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild } from './child.mjs';
import { msSince } from './stats.mjs';

const script = (name) => fileURLToPath(new URL(`./${name}`, import.meta.url));

/** Script paths of the child processes. */
export const scripts = {
  model: script('model-server.mjs'),
  server: script('server-process.mjs'),
  bare: script('bare-server.mjs'),
  latencyClient: script('latency-client.mjs'),
  socketClients: script('socket-clients.mjs'),
};

/**
 * The model's answer, in the action-aware format agents are prompted for (plain text would be read as an
 * empty reply). 8 characters a chunk, about two tokens, is near what a real model streams.
 */
const MODEL_REPLY =
  '<response><thought>Greet them back.</thought><actions>REPLY</actions>' +
  '<text>Hello! I am the benchmark model, and I always answer at once.</text></response>';

/**
 * Starts the fake model server in its own process: the fixed reply above, or with `script` (`echo-tool`) the
 * answers of `echo-upstream.mjs`.
 */
export async function startModelServer({ script } = {}) {
  const model = startChild(scripts.model, { reply: MODEL_REPLY, chunkSize: 8, script });
  const { url } = await model.next('ready');
  return { ...model, url };
}

/** The PostgreSQL server of the PostgreSQL variants: BENCH_DATABASE_URL, else the machine's local one. */
export const POSTGRES_ADMIN_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A new, empty PostgreSQL database for one run; `drop()` removes it. */
export async function createPostgresDatabase() {
  const name = `parley_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({
    connectionString: POSTGRES_ADMIN_URL,
    connectionTimeoutMillis: 3000,
  });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Whether the PostgreSQL server of the PostgreSQL variants answers; the reason when it does not. */
export async function postgresUnavailable() {
  const client = new pg.Client({
    connectionString: POSTGRES_ADMIN_URL,
    connectionTimeoutMillis: 2000,
  });
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    return `PostgreSQL at ${POSTGRES_ADMIN_URL} did not answer (${error.message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts a Parley server process on `database` ({ dataDir } or { databaseUrl }), with `plugins` by name (see
 * `server-process.mjs`); resolves once it listens.
 */
export async function startServer(
  context,
  database,
  plugins = [],
  tracing = undefined,
  tee = false,
  serverOptions = undefined,
) {
  const server = startChild(
    scripts.server,
    {
      modelUrl: context.model.url,
      ...database,
      plugins,
      ...(tracing ? { tracing } : {}),
      ...(tee ? { tee: true } : {}),
      ...(serverOptions ? { serverOptions } : {}),
    },
    { execArgv: ['--expose-gc'] },
  );
  const ready = await server.next('ready', 180_000);
  return { ...ready, server };
}

/**
 * Runs `fn` against a fresh Parley server in its own process: with PGlite in a new temporary folder that is
 * removed afterwards, or with `{ postgres: true }` on a new PostgreSQL database that is dropped afterwards;
 * `plugins` by name (see `server-process.mjs`); `serverOptions`, more of `createServer`'s options (JSON).
 */
export async function withServer(
  context,
  name,
  fn,
  {
    postgres = false,
    plugins = [],
    tracing = undefined,
    tee = false,
    serverOptions = undefined,
  } = {},
) {
  const postgresDatabase = postgres ? await createPostgresDatabase() : undefined;
  const dataDir = postgres ? undefined : await mkdtemp(join(tmpdir(), 'parley-bench-'));
  let running;
  try {
    running = await startServer(
      context,
      postgresDatabase ? { databaseUrl: postgresDatabase.url } : { dataDir },
      plugins,
      tracing,
      tee,
      serverOptions,
    );
    return await fn({ ...running, name });
  } finally {
    await running?.server.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await postgresDatabase?.drop();
  }
}

/**
 * Runs `fn` against a fresh bare server (lib/bare-server.mjs): hono and socket.io doing the same round trips
 * as Parley and nothing else, the limit each Parley figure is compared with.
 */
export async function withBareServer(
  context,
  name,
  fn,
  { durable = false, postgres = false } = {},
) {
  const postgresDatabase = durable && postgres ? await createPostgresDatabase() : undefined;
  const dataDir =
    durable && !postgres ? await mkdtemp(join(tmpdir(), 'parley-bench-bare-')) : undefined;
  const config = postgresDatabase
    ? { databaseUrl: postgresDatabase.url }
    : dataDir
      ? { dataDir }
      : {};
  const server = startChild(scripts.bare, config, { execArgv: ['--expose-gc'] });
  try {
    const ready = await server.next('ready', 180_000);
    return await fn({
      ...ready,
      server,
      name: `${name}-bare${durable ? '-durable' : ''}`,
      bare: true,
    });
  } finally {
    await server.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await postgresDatabase?.drop();
  }
}

/**
 * The second limit: the bare server that also stores each message durably in the same kind of database as
 * Parley (`postgres` or PGlite on disk), one INSERT per message (see lib/bare-server.mjs).
 */
export function withDurableBareServer(context, name, fn, { postgres = false } = {}) {
  return withBareServer(context, name, fn, { durable: true, postgres });
}

/**
 * Runs `fn` (the measured phase) and reports the CPU the server and the model server used meanwhile, in
 * percent of one core, and the server's peak RSS. With `context.profileDir`, the server's CPU profile of
 * the phase is written there as `<scenario>-<time>.cpuprofile`.
 */
export async function measureCpu(context, { server, name, bare = false }, fn) {
  const profile = context.profileDir && !bare;
  if (profile) await server.ask({ type: 'profile-start' }, 'profile-started');
  const [serverBefore, modelBefore] = await Promise.all([
    server.ask({ type: 'usage' }, 'usage'),
    context.model.ask({ type: 'usage' }, 'usage'),
  ]);
  const start = process.hrtime.bigint();
  const result = await fn();
  const elapsedMs = msSince(start);
  const [serverAfter, modelAfter] = await Promise.all([
    server.ask({ type: 'usage' }, 'usage'),
    context.model.ask({ type: 'usage' }, 'usage'),
  ]);
  let profileFile;
  if (profile) {
    profileFile = join(context.profileDir, `${name}-${Date.now()}.cpuprofile`);
    await server.ask({ type: 'profile-stop', file: profileFile }, 'profile-stopped');
  }
  const cpuMs = (before, after) =>
    (after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / 1000;
  const percent = (before, after) => (cpuMs(before, after) / elapsedMs) * 100;
  return {
    result,
    usage: {
      elapsedMs,
      serverCpuMs: cpuMs(serverBefore, serverAfter),
      serverCpu: percent(serverBefore, serverAfter),
      modelCpu: percent(modelBefore, modelAfter),
      modelRequests: modelAfter.requests - modelBefore.requests,
      peakRssMb: serverAfter.maxRssKb / 1024,
      statements: statementsBetween(serverBefore.statements, serverAfter.statements),
    },
    profileFile,
  };
}

/** Database statements (by their first words) between two usage readings; undefined without PostgreSQL. */
function statementsBetween(before, after) {
  if (!after || Object.keys(after).length === 0) return undefined;
  const counts = {};
  for (const [kind, count] of Object.entries(after)) {
    const delta = count - (before?.[kind] ?? 0);
    if (delta > 0) counts[kind] = delta;
  }
  return counts;
}

/**
 * A row with the PostgreSQL statements (round trips) per unit of work, and a note naming the most frequent,
 * when the server ran on PostgreSQL.
 */
export function statementRows(what, usage, count) {
  if (!usage.statements) return { rows: [], notes: [] };
  const entries = Object.entries(usage.statements).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  return {
    rows: [{ figure: `database statements per ${what}`, value: total / count, unit: '' }],
    notes: [
      `statements per ${what}: ` +
        entries
          .slice(0, 8)
          .map(([kind, n]) => `${(n / count).toFixed(2)} × "${kind}"`)
          .join('; '),
    ],
  };
}

/**
 * Runs the sequential client in its own process: warm-up, then the measured phase under `measureCpu`.
 * Returns the client's result message and the server's usage.
 */
export async function runLatencyClient(context, running, config) {
  const client = startChild(scripts.latencyClient, config);
  await client.next('warmed-up', 180_000);
  const measured = await measureCpu(context, running, () =>
    client.ask({ type: 'go' }, 'result', config.durationMs + 60_000),
  );
  await client.exited;
  return measured;
}

/** Starts `total` socket clients spread over `processes` child processes; resolves once all are ready. */
export async function startSocketClients({ url, total, processes, role, roomId }) {
  const children = [];
  for (let index = 0; index < processes; index++) {
    const from = Math.floor((total * index) / processes);
    const to = Math.floor((total * (index + 1)) / processes);
    children.push(
      startChild(scripts.socketClients, { url, clients: to - from, offset: from, role, roomId }),
    );
  }
  await Promise.all(children.map((child) => child.next('ready', 120_000)));
  return {
    children,
    stop: () => Promise.all(children.map((child) => child.stop())),
  };
}

/**
 * Rows shared by the scenarios: the CPU of the server, the model server and the client processes while the
 * server was measured (each in percent of one core; the machine has two), and the server's peak RSS.
 */
export function usageRows(usage, clientCpu, limitUsage) {
  return [
    {
      figure: 'server CPU (of one core)',
      value: usage.serverCpu,
      unit: '%',
      limit: limitUsage?.serverCpu,
    },
    { figure: 'model server CPU', value: usage.modelCpu, unit: '%' },
    ...(clientCpu === undefined ? [] : [{ figure: 'client CPU', value: clientCpu, unit: '%' }]),
    {
      figure: 'server peak RSS',
      value: usage.peakRssMb,
      unit: 'MB',
      limit: limitUsage?.peakRssMb,
    },
  ];
}

/**
 * The server's CPU milliseconds per unit of work (`what`: a reply, a submit) while measured, next to the bare
 * server's for the same work.
 */
export function cpuPerRow(what, usage, count, limit) {
  return {
    figure: `server CPU per ${what}`,
    value: usage.serverCpuMs / count,
    unit: 'ms',
    limit: limit ? limit.usage.serverCpuMs / limit.count : undefined,
  };
}
