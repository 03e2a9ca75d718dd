import { randomUUID } from 'node:crypto';
import {
  measureCpu,
  startSocketClients,
  usageRows,
  withBareServer,
  withServer,
} from '../lib/harness.mjs';
import { summarize } from '../lib/stats.mjs';

const CLIENTS = 50;
const INTERVAL_MS = 50;

function measureReplies(context) {
  return async ({ url, server, name, bare }) => {
    const clients = await startSocketClients({
      url,
      total: CLIENTS,
      processes: 1,
      role: 'reply',
      roomId: randomUUID(),
    });
    const [child] = clients.children;
    const send = (durationMs, maxMessages) =>
      child.ask(
        { type: 'send-replies', durationMs, maxMessages, intervalMs: INTERVAL_MS },
        'result',
        durationMs + 30_000,
      );
    try {
      await send(2_000, 40);
      const { result, usage } = await measureCpu(context, { server, name, bare }, () =>
        send(context.durationS * 1000, 1_000),
      );
      return { result, usage, latency: summarize(result.latencies) };
    } finally {
      await clients.stop();
    }
  };
}

/**
 * 5. 50 socket clients in one room; one of them sends a message every 50 ms (the default rate limit allows
 * 20 a second) once the previous reply reached everyone; each client times the agent's reply broadcast. The
 * limit is a bare socket.io server broadcasting a reply to the same room at once.
 */
export default {
  id: 'socket-reply',
  title: `5. socket: ${CLIENTS} clients in a room, one sender`,
  run: async (context) => {
    const parley = await withServer(context, 'socket-reply', measureReplies(context));
    const bare = await withBareServer(context, 'socket-reply', measureReplies(context));
    const { result, usage, latency } = parley;
    return {
      rows: [
        {
          figure: 'p50 reply receipt',
          value: latency.p50,
          unit: 'ms',
          limit: bare.latency.p50,
          target: ['<', 10],
          eliza: 274,
        },
        { figure: 'p90 reply receipt', value: latency.p90, unit: 'ms', limit: bare.latency.p90 },
        { figure: 'p99 reply receipt', value: latency.p99, unit: 'ms', limit: bare.latency.p99 },
        ...usageRows(usage, result.clientCpu, bare.usage),
      ],
      notes: [
        `${result.sent} messages, ${latency.count} receipts, ${result.missing} missing, ${result.errors} send errors`,
      ],
    };
  },
};
