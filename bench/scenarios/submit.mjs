import { measureCpu, usageRows, withServer } from '../lib/harness.mjs';
import { runWrk } from '../lib/wrk.mjs';

const CONNECTIONS = 32;

/** 3. wrk, 32 connections of POST /api/messaging/submit, each message to a new channel; PGlite on disk. */
export default {
  id: 'submit',
  title: `3. submit (wrk, ${CONNECTIONS} connections, PGlite on disk)`,
  needsWrk: true,
  run: (context) =>
    withServer(context, 'submit', async ({ url, server, name }) => {
      const options = { url, script: 'submit.lua', threads: 1, connections: CONNECTIONS };
      await runWrk({ ...options, durationS: 2 });
      const { result, usage } = await measureCpu(context, { server, name }, () =>
        runWrk({ ...options, durationS: context.durationS }),
      );
      return {
        rows: [
          {
            figure: 'throughput',
            value: result.perSecond,
            unit: 'messages/s',
            target: ['>=', 5000],
            eliza: 495,
          },
          { figure: 'p50 latency', value: result.p50, unit: 'ms' },
          { figure: 'p90 latency', value: result.p90, unit: 'ms' },
          { figure: 'p99 latency', value: result.p99, unit: 'ms' },
          ...usageRows(usage, result.clientCpu),
        ],
        notes: [`${result.requests} messages, ${result.errors} errors`],
      };
    }),
};
