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

const CONNECTIONS = 16;

function measureConversations(context) {
  return async ({ url, server, name, bare }) => {
    const options = {
      url,
      script: 'sync-conversations.lua',
      threads: CONNECTIONS,
      connections: CONNECTIONS,
    };
    await runWrk({ ...options, durationS: 2 });
    const { result, usage } = await measureCpu(context, { server, name, bare }, () =>
      runWrk({ ...options, durationS: context.durationS }),
    );
    return { result, usage, count: result.requests };
  };
}

/**
 * 2. wrk, 16 connections each in its own conversation (channel), mode sync; PGlite on disk or a new PostgreSQL
 * database. The limit is the bare hono server answering a sync-shaped body at once.
 */
function conversationsScenario({ postgres }) {
  const id = postgres ? 'conversations-postgres' : 'conversations';
  return {
    id,
    title: `2${postgres ? 'b' : ''}. ${CONNECTIONS} concurrent sync conversations (wrk, ${postgres ? 'PostgreSQL' : 'PGlite'})`,
    needsWrk: true,
    needsPostgres: postgres,
    run: async (context) => {
      const parley = await withServer(context, id, measureConversations(context), { postgres });
      const bare = await withBareServer(context, id, measureConversations(context));
      const durable = await withDurableBareServer(context, id, measureConversations(context), {
        postgres,
      });
      const { result, usage } = parley;
      const statements = statementRows('reply', usage, parley.count);
      return {
        rows: [
          {
            figure: 'throughput',
            value: result.perSecond,
            unit: 'replies/s',
            limit: bare.result.perSecond,
            durable: durable.result.perSecond,
            target: ['>=', 300],
            eliza: 8.5,
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
            ...cpuPerRow('reply', usage, parley.count, bare),
            durable: durable.usage.serverCpuMs / durable.count,
          },
          ...statements.rows,
          ...usageRows(usage, result.clientCpu, bare.usage),
        ],
        notes: [
          `${result.requests} replies, ${result.errors} errors; bare: ${bare.result.requests} requests`,
          ...statements.notes,
        ],
      };
    },
  };
}

export const conversations = conversationsScenario({ postgres: false });
export const conversationsPostgres = conversationsScenario({ postgres: true });
