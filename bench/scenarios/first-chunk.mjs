import { randomUUID } from 'node:crypto';
import { runLatencyClient, usageRows, withServer } from '../lib/harness.mjs';
import { summarize } from '../lib/stats.mjs';

/** 4. One client, mode stream, sequential: time to the first `event: chunk` of the reply. */
export default {
  id: 'first-chunk',
  title: '4. first stream chunk (1 client, sequential)',
  run: (context) =>
    withServer(context, 'first-chunk', async ({ url, server, name }) => {
      const { result, usage } = await runLatencyClient(
        context,
        { server, name },
        {
          url,
          path: `/api/messaging/channels/${randomUUID()}/messages`,
          body: { text: 'Hello, how are you today?', entityId: 'bench-user', mode: 'stream' },
          mode: 'stream',
          warmupRequests: 200,
          durationMs: context.durationS * 1000,
          maxRequests: 50_000,
        },
      );
      const first = summarize(result.firstChunk);
      const whole = summarize(result.total);
      return {
        rows: [
          {
            figure: 'p50 first chunk',
            value: first.p50,
            unit: 'ms',
            target: ['<', 5],
            eliza: 177,
          },
          { figure: 'p90 first chunk', value: first.p90, unit: 'ms' },
          { figure: 'p99 first chunk', value: first.p99, unit: 'ms' },
          { figure: 'p50 whole stream', value: whole.p50, unit: 'ms' },
          ...usageRows(usage, result.clientCpu),
        ],
        notes: [`${first.count} streams, ${result.errors} errors ${result.lastError ?? ''}`],
      };
    }),
};
