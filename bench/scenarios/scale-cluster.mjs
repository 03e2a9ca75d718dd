// Scale-out figures on PostgreSQL, standalone: `node bench/scenarios/scale-cluster.mjs [--duration=5]
// [--clients=1000]` (after a build; needs PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432). For 1, 2 and 3
// server processes (integration/scale/scale-node.mjs: createServer on PostgreSQL, rooms through PostgreSQL,
// ELIZA as the model) it prints submit throughput, reply throughput (`sync` mode, one channel per client loop)
// and the p99 of a broadcast to --clients websocket clients spread over the processes; then the NOTIFY rate of
// one connection. With rooms through PostgreSQL and through Redis (REDIS_URL, default
// redis://127.0.0.1:6379; `--rooms=postgres` or `--rooms=redis` for one). For each phase it also prints the CPU
// time all server processes used (Linux: /proc/<pid>/stat) per submit, per reply and per broadcast, and the
// ratio to one process: the cost of being a cluster. Load generators run in this process, beside the servers:
// on a 2-core machine every figure is shared with them (the load average is printed). Prints figures, asserts
// nothing.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { summarize } from '../lib/stats.mjs';

const require = createRequire(import.meta.url);
const pg = require('pg');
const { io } = require('socket.io-client');

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=')),
);
const durationMs = Number(args.duration ?? 5) * 1000;
const clientCount = Number(args.clients ?? 1000);
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const nodeScript = fileURLToPath(
  new URL('../../integration/scale/scale-node.mjs', import.meta.url),
);
const SERVER_ID = '00000000-0000-0000-0000-000000000000';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const roomKinds = args.rooms ? [args.rooms] : ['postgres', 'redis'];
/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU milliseconds (user + system) a process has used so far; undefined where /proc is missing. */
function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Runs `phase` and returns its result with the CPU milliseconds all the nodes used meanwhile. */
async function withCpu(nodes, phase) {
  const before = nodes.map(({ child }) => cpuMsOf(child.pid));
  const result = await phase();
  const after = nodes.map(({ child }) => cpuMsOf(child.pid));
  const cpuMs = before.every((value) => value !== undefined)
    ? after.reduce((sum, value, index) => sum + value - before[index], 0)
    : undefined;
  return { result, cpuMs };
}

async function withDatabase(run) {
  const name = `parley_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function startNodes(count, databaseUrl, rooms) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const child = spawn(process.execPath, [nodeScript], {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: databaseUrl,
          ...(rooms === 'redis' ? { REDIS_URL: redisUrl } : {}),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const [line] = await once(child.stdout, 'data');
      return { child, url: JSON.parse(String(line).split('\n')[0]).url };
    }),
  );
}

async function stopNodes(nodes) {
  await Promise.all(
    nodes.map(async ({ child }) => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }),
  );
}

/** `concurrency` loops calling `request(url)` round robin over the nodes for the duration; requests/s and count. */
async function throughput(nodes, concurrency, request) {
  let done = 0;
  const end = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, loop) => {
      const state = { channelId: randomUUID() };
      for (let index = loop; Date.now() < end; index += concurrency) {
        await request(nodes[index % nodes.length].url, state);
        done += 1;
      }
    }),
  );
  return { perSecond: (done / durationMs) * 1000, count: done };
}

async function post(url, path, body) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  await response.arrayBuffer();
}

const submit = (url, { channelId }) =>
  post(url, '/api/messaging/submit', {
    channel_id: channelId,
    server_id: SERVER_ID,
    author_id: 'bench',
    content: 'hello',
    source_type: 'api',
    metadata: {},
  });

const reply = (url, { channelId }) =>
  post(url, `/api/messaging/channels/${channelId}/messages`, {
    text: 'I feel happy today',
    entityId: 'bench',
    mode: 'sync',
  });

/** p99 of a REST submit on node 1 reaching `clientCount` websocket clients spread over every node. */
async function broadcastLatency(nodes) {
  const roomId = randomUUID();
  const latencies = [];
  const sockets = [];
  for (let start = 0; start < clientCount; start += 100) {
    const batch = [];
    for (let index = start; index < Math.min(clientCount, start + 100); index++) {
      batch.push(
        new Promise((resolve, reject) => {
          const socket = io(nodes[index % nodes.length].url, {
            transports: ['websocket'],
            forceNew: true,
            reconnection: false,
          });
          socket.once('connect_error', reject);
          socket.once('connection_established', () =>
            socket.emit(
              'message',
              { type: 1, payload: { roomId, entityId: `client-${index}` } },
              () => resolve(socket),
            ),
          );
        }),
      );
    }
    sockets.push(...(await Promise.all(batch)));
  }
  for (const socket of sockets) {
    socket.on('messageBroadcast', (message) => {
      if (message.text.startsWith('bench:')) {
        latencies.push(Number(process.hrtime.bigint() - BigInt(message.text.slice(6))) / 1e6);
      }
    });
  }
  const messages = 20;
  for (let index = 0; index < messages; index++) {
    const expected = (index + 1) * sockets.length;
    await post(nodes[0].url, '/api/messaging/submit', {
      channel_id: roomId,
      server_id: SERVER_ID,
      author_id: 'bench',
      content: `bench:${process.hrtime.bigint()}`,
      source_type: 'api',
      metadata: {},
    });
    const deadline = Date.now() + 10_000;
    while (latencies.length < expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  for (const socket of sockets) socket.disconnect();
  return { ...summarize(latencies), expected: messages * sockets.length, messages };
}

async function notifyRate() {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const count = 2000;
  const start = process.hrtime.bigint();
  for (let index = 0; index < count; index++) {
    await client.query('SELECT pg_notify($1, $2)', ['parley_bench', '{"x":1}']);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await client.end();
  return count / seconds;
}

const perUnit = (cpuMs, count) => (cpuMs === undefined ? undefined : cpuMs / count);
const ms = (value) => (value === undefined ? 'n/a' : `${value.toFixed(2)} ms`);
const ratio = (value, base) =>
  value === undefined || base === undefined ? '' : ` (${(value / base).toFixed(2)}× 1 process)`;

console.log(
  `load average at start: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(', ')}`,
);
for (const rooms of roomKinds) {
  let base;
  for (const processes of [1, 2, 3]) {
    await withDatabase(async (databaseUrl) => {
      const nodes = await startNodes(processes, databaseUrl, rooms);
      try {
        const submits = await withCpu(nodes, () => throughput(nodes, 32, submit));
        const replies = await withCpu(nodes, () => throughput(nodes, 16, reply));
        const broadcasts = await withCpu(nodes, () => broadcastLatency(nodes));
        const broadcast = broadcasts.result;
        const cpu = {
          submit: perUnit(submits.cpuMs, submits.result.count),
          reply: perUnit(replies.cpuMs, replies.result.count),
          // Connecting the clients is in the phase too: the figure is an upper bound per broadcast.
          broadcast: perUnit(broadcasts.cpuMs, broadcast.messages),
        };
        base ??= cpu;
        console.log(
          `rooms through ${rooms}, ${processes} process(es): submit ${submits.result.perSecond.toFixed(0)}/s, ` +
            `sync replies ${replies.result.perSecond.toFixed(0)}/s, broadcast to ${clientCount} clients ` +
            `p50 ${broadcast.p50.toFixed(1)} ms, p99 ${broadcast.p99.toFixed(1)} ms ` +
            `(${broadcast.count}/${broadcast.expected} received); server CPU per submit ${ms(cpu.submit)}` +
            `${ratio(cpu.submit, base.submit)}, per reply ${ms(cpu.reply)}${ratio(cpu.reply, base.reply)}, ` +
            `per broadcast (clients connecting included) ${ms(cpu.broadcast)}${ratio(cpu.broadcast, base.broadcast)}`,
        );
      } finally {
        await stopNodes(nodes);
      }
    });
  }
}
console.log(`pg_notify round trips on one connection: ${(await notifyRate()).toFixed(0)}/s`);
console.log(
  `load average at end: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(', ')}`,
);
