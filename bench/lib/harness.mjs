import { mkdtemp, rm } from 'node:fs/promises';
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

/** Starts the fake model server in its own process. */
export async function startModelServer() {
  const model = startChild(scripts.model, { reply: MODEL_REPLY, chunkSize: 8 });
  const { url } = await model.next('ready');
  return { ...model, url };
}

/**
 * Runs `fn` against a fresh Parley server in its own process, with PGlite in a new temporary folder that is
 * removed afterwards.
 */
export async function withServer(context, name, fn) {
  const dataDir = await mkdtemp(join(tmpdir(), 'parley-bench-'));
  const server = startChild(
    scripts.server,
    { modelUrl: context.model.url, dataDir },
    { execArgv: ['--expose-gc'] },
  );
  try {
    const ready = await server.next('ready');
    return await fn({ ...ready, server, name });
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Runs `fn` (the measured phase) and reports the CPU the server and the model server used meanwhile, in
 * percent of one core, and the server's peak RSS. With `context.profileDir`, the server's CPU profile of
 * the phase is written there as `<scenario>-<time>.cpuprofile`.
 */
export async function measureCpu(context, { server, name }, fn) {
  if (context.profileDir) await server.ask({ type: 'profile-start' }, 'profile-started');
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
  if (context.profileDir) {
    const file = join(context.profileDir, `${name}-${Date.now()}.cpuprofile`);
    await server.ask({ type: 'profile-stop', file }, 'profile-stopped');
  }
  const percent = (before, after) =>
    ((after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / 1000 / elapsedMs) *
    100;
  return {
    result,
    usage: {
      serverCpu: percent(serverBefore, serverAfter),
      modelCpu: percent(modelBefore, modelAfter),
      peakRssMb: serverAfter.maxRssKb / 1024,
    },
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
export function usageRows(usage, clientCpu) {
  return [
    { figure: 'server CPU (of one core)', value: usage.serverCpu, unit: '%' },
    { figure: 'model server CPU', value: usage.modelCpu, unit: '%' },
    ...(clientCpu === undefined ? [] : [{ figure: 'client CPU', value: clientCpu, unit: '%' }]),
    { figure: 'server peak RSS', value: usage.peakRssMb, unit: 'MB' },
  ];
}
