import { measureCpu, usageRows, withServer } from '../lib/harness.mjs';
import { runWrk } from '../lib/wrk.mjs';

const CONNECTIONS = 16;

/** 2. wrk, 16 connections each in its own conversation (channel), mode sync. */
export default {
  id: 'conversations',
  title: `2. ${CONNECTIONS} concurrent sync conversations (wrk)`,
  needsWrk: true,
  run: (context) =>
    withServer(context, 'conversations', async ({ url, server, name }) => {
      const options = {
        url,
        script: 'sync-conversations.lua',
        threads: CONNECTIONS,
        connections: CONNECTIONS,
      };
      await runWrk({ ...options, durationS: 2 });
      const { result, usage } = await measureCpu(context, { server, name }, () =>
        runWrk({ ...options, durationS: context.durationS }),
      );
      return {
        rows: [
          {
            figure: 'throughput',
            value: result.perSecond,
            unit: 'replies/s',
            target: ['>=', 300],
            eliza: 8.5,
          },
          { figure: 'p50 latency', value: result.p50, unit: 'ms' },
          { figure: 'p90 latency', value: result.p90, unit: 'ms' },
          { figure: 'p99 latency', value: result.p99, unit: 'ms' },
          ...usageRows(usage, result.clientCpu),
        ],
        notes: [`${result.requests} replies, ${result.errors} errors`],
      };
    }),
};
