import { randomUUID } from 'node:crypto';
import http from 'node:http';
import {
  measureCpu,
  startSocketClients,
  usageRows,
  withBareServer,
  withServer,
} from '../lib/harness.mjs';
import { summarize } from '../lib/stats.mjs';

const CLIENTS = 1_000;
const INTERVAL_MS = 100;

/** POSTs one submit whose text carries its own send time, for the clients to time their receipt. */
function submit(agent, url, roomId) {
  const body = Buffer.from(
    JSON.stringify({
      channel_id: roomId,
      author_id: 'bench-agent',
      content: `bench:${process.hrtime.bigint()}`,
    }),
  );
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL('/api/messaging/submit', url),
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode === 201));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function submitFor(url, roomId, durationMs) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const started = Date.now();
  let sent = 0;
  let failed = 0;
  while (Date.now() - started < durationMs) {
    const next = Date.now() + INTERVAL_MS;
    if (!(await submit(agent, url, roomId))) failed += 1;
    sent += 1;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
  }
  agent.destroy();
  return { sent, failed };
}

function measureBroadcast(context) {
  return async ({ url, server, name, bare }) => {
    const roomId = randomUUID();
    const clients = await startSocketClients({
      url,
      total: CLIENTS,
      processes: context.clientProcesses,
      role: 'receive',
      roomId,
    });
    const collect = async () => {
      // Stragglers get a second to arrive before the clients report.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const reports = await Promise.all(
        clients.children.map((child) => child.ask({ type: 'report' }, 'report')),
      );
      return {
        latencies: reports.flatMap((report) => report.latencies),
        clientCpu: reports.reduce((sum, report) => sum + report.clientCpu, 0),
      };
    };
    try {
      await submitFor(url, roomId, 2_000);
      await collect();
      const { result, usage } = await measureCpu(context, { server, name, bare }, () =>
        submitFor(url, roomId, context.durationS * 1000),
      );
      const collected = await collect();
      return { result, usage, collected, latency: summarize(collected.latencies) };
    } finally {
      await clients.stop();
    }
  };
}

/**
 * 6. 1,000 socket clients in one room, spread over child processes; the runner submits a message every
 * 100 ms and each client times its `messageBroadcast` from the moment of the submit. The limit is a bare hono
 * and socket.io server broadcasting each submit to the same clients.
 */
export default {
  id: 'socket-broadcast',
  title: `6. socket: ${CLIENTS} clients in a room, submit broadcast`,
  run: async (context) => {
    const parley = await withServer(context, 'socket-broadcast', measureBroadcast(context));
    const bare = await withBareServer(context, 'socket-broadcast', measureBroadcast(context));
    const { result, usage, collected, latency } = parley;
    const missing = result.sent * CLIENTS - latency.count;
    const bareMissing = bare.result.sent * CLIENTS - bare.latency.count;
    return {
      rows: [
        {
          figure: 'p99 broadcast receipt',
          value: latency.p99,
          unit: 'ms',
          limit: bare.latency.p99,
          target: ['<', 100],
        },
        {
          figure: 'p50 broadcast receipt',
          value: latency.p50,
          unit: 'ms',
          limit: bare.latency.p50,
        },
        {
          figure: 'p90 broadcast receipt',
          value: latency.p90,
          unit: 'ms',
          limit: bare.latency.p90,
        },
        ...usageRows(usage, collected.clientCpu, bare.usage),
      ],
      notes: [
        `${result.sent} submits (${result.failed} failed), ${latency.count} receipts, ${missing} missing; bare: ${bare.result.sent} submits, ${bareMissing} missing; clients in ${context.clientProcesses} processes`,
      ],
    };
  },
};
