import { randomUUID } from 'node:crypto';
import {
  cpuPerRow,
  runLatencyClient,
  usageRows,
  withBareServer,
  withServer,
} from '../lib/harness.mjs';
import { summarize } from '../lib/stats.mjs';

function measureSync(context) {
  return async ({ url, server, name, bare }) => {
    const { result, usage } = await runLatencyClient(
      context,
      { server, name, bare },
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
    return { result, usage, latency, count: latency.count };
  };
}

/**
 * 1. One client, mode sync, one request after the other in one conversation. The limit is the bare hono server
 * answering a sync-shaped body at once, to the same client.
 */
export default {
  id: 'sync',
  title: '1. sync round trip (1 client, sequential)',
  run: async (context) => {
    const parley = await withServer(context, 'sync', measureSync(context));
    const bare = await withBareServer(context, 'sync', measureSync(context));
    const { latency, result, usage } = parley;
    return {
      rows: [
        {
          figure: 'p50 latency',
          value: latency.p50,
          unit: 'ms',
          limit: bare.latency.p50,
          target: ['<', 5],
          eliza: 238,
        },
        { figure: 'p90 latency', value: latency.p90, unit: 'ms', limit: bare.latency.p90 },
        { figure: 'p99 latency', value: latency.p99, unit: 'ms', limit: bare.latency.p99 },
        {
          figure: 'throughput',
          value: (latency.count / result.elapsedMs) * 1000,
          unit: 'replies/s',
          limit: (bare.latency.count / bare.result.elapsedMs) * 1000,
        },
        cpuPerRow('reply', usage, parley.count, bare),
        ...usageRows(usage, result.clientCpu, bare.usage),
      ],
      notes: [`${latency.count} requests, ${result.errors} errors ${result.lastError ?? ''}`],
    };
  },
};
