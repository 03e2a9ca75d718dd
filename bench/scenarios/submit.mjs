import {
  cpuPerRow,
  measureCpu,
  statementRows,
  usageRows,
  withBareServer,
  withDurableBareServer,
  withServer,
} from '../lib/harness.mjs';
import { runWrk } from '../lib/wrk.mjs';

const CONNECTIONS = 32;

/** wrk, warm-up then measured, against one server (Parley or bare). */
function measureSubmits(context) {
  return async ({ url, server, name, bare }) => {
    const options = { url, script: 'submit.lua', threads: 1, connections: CONNECTIONS };
    await runWrk({ ...options, durationS: 2 });
    const { result, usage } = await measureCpu(context, { server, name, bare }, () =>
      runWrk({ ...options, durationS: context.durationS }),
    );
    return { result, usage, count: result.requests };
  };
}

/**
 * 3. wrk, 32 connections of POST /api/messaging/submit, each message to a new channel; PGlite on disk (durable:
 * the WAL is synced before each batch is acknowledged) or a new PostgreSQL database. The limit is the bare
 * hono server parsing and answering the same body.
 */
function submitScenario({ postgres }) {
  return {
    id: postgres ? 'submit-postgres' : 'submit',
    title: `3${postgres ? 'b' : ''}. submit (wrk, ${CONNECTIONS} connections, ${postgres ? 'PostgreSQL' : 'PGlite on disk'})`,
    needsWrk: true,
    needsPostgres: postgres,
    run: async (context) => {
      const parley = await withServer(
        context,
        postgres ? 'submit-postgres' : 'submit',
        measureSubmits(context),
        {
          postgres,
        },
      );
      const bare = await withBareServer(context, 'submit', measureSubmits(context));
      const durable = await withDurableBareServer(context, 'submit', measureSubmits(context), {
        postgres,
      });
      const { result, usage } = parley;
      const statements = statementRows('submit', usage, parley.count);
      return {
        rows: [
          {
            figure: 'throughput',
            value: result.perSecond,
            unit: 'messages/s',
            limit: bare.result.perSecond,
            durable: durable.result.perSecond,
            target: ['>=', 5000],
            ratioTarget: ['>=', 0.35],
            eliza: 495,
          },
          {
            figure: 'p50 latency',
            value: result.p50,
            unit: 'ms',
            limit: bare.result.p50,
            durable: durable.result.p50,
          },
          {
            figure: 'p90 latency',
            value: result.p90,
            unit: 'ms',
            limit: bare.result.p90,
            durable: durable.result.p90,
          },
          {
            figure: 'p99 latency',
            value: result.p99,
            unit: 'ms',
            limit: bare.result.p99,
            durable: durable.result.p99,
          },
          {
            ...cpuPerRow('submit', usage, parley.count, bare),
            durable: durable.usage.serverCpuMs / durable.count,
          },
          ...statements.rows,
          ...usageRows(usage, result.clientCpu, bare.usage),
        ],
        notes: [
          `${result.requests} messages, ${result.errors} errors; bare: ${bare.result.requests} requests, ${bare.result.errors} errors`,
          ...statements.notes,
        ],
      };
    },
  };
}

export const submit = submitScenario({ postgres: false });
export const submitPostgres = submitScenario({ postgres: true });
