import { randomUUID } from 'node:crypto';
import { runLatencyClient, usageRows, withServer } from '../lib/harness.mjs';
import { summarize } from '../lib/stats.mjs';

/** 1. One client, mode sync, one request after the other in one conversation. */
export default {
  id: 'sync',
  title: '1. sync round trip (1 client, sequential)',
  run: (context) =>
    withServer(context, 'sync', async ({ url, server, name }) => {
      const { result, usage } = await runLatencyClient(
        context,
        { server, name },
        {
          url,
          path: `/api/messaging/channels/${randomUUID()}/messages`,
          body: { text: 'Hello, how are you today?', entityId: 'bench-user', mode: 'sync' },
          mode: 'sync',
          warmupRequests: 200,
          durationMs: context.durationS * 1000,
          maxRequests: 50_000,
        },
      );
      const latency = summarize(result.total);
      return {
        rows: [
          { figure: 'p50 latency', value: latency.p50, unit: 'ms', target: ['<', 10], eliza: 238 },
          { figure: 'p90 latency', value: latency.p90, unit: 'ms' },
          { figure: 'p99 latency', value: latency.p99, unit: 'ms' },
          {
            figure: 'throughput',
            value: (latency.count / result.elapsedMs) * 1000,
            unit: 'replies/s',
          },
          ...usageRows(usage, result.clientCpu),
        ],
        notes: [`${latency.count} requests, ${result.errors} errors ${result.lastError ?? ''}`],
      };
    }),
};
