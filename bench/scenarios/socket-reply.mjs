import { randomUUID } from 'node:crypto';
import { measureCpu, startSocketClients, usageRows, withServer } from '../lib/harness.mjs';
import { summarize } from '../lib/stats.mjs';

const CLIENTS = 50;
const INTERVAL_MS = 50;

/**
 * 5. 50 socket clients in one room; one of them sends a message every 50 ms (the default rate limit allows
 * 20 a second) once the previous reply reached everyone; each client times the agent's reply broadcast.
 */
export default {
  id: 'socket-reply',
  title: `5. socket: ${CLIENTS} clients in a room, one sender`,
  run: (context) =>
    withServer(context, 'socket-reply', async ({ url, server, name }) => {
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
        const { result, usage } = await measureCpu(context, { server, name }, () =>
          send(context.durationS * 1000, 1_000),
        );
        const latency = summarize(result.latencies);
        return {
          rows: [
            {
              figure: 'p50 reply receipt',
              value: latency.p50,
              unit: 'ms',
              target: ['<', 15],
              eliza: 274,
            },
            { figure: 'p90 reply receipt', value: latency.p90, unit: 'ms' },
            { figure: 'p99 reply receipt', value: latency.p99, unit: 'ms' },
            ...usageRows(usage, result.clientCpu),
          ],
          notes: [
            `${result.sent} messages, ${latency.count} receipts, ${result.missing} missing, ${result.errors} send errors`,
          ],
        };
      } finally {
        await clients.stop();
      }
    }),
};
