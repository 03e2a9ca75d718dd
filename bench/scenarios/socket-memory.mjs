import { startSocketClients, withBareServer, withServer } from '../lib/harness.mjs';

const CLIENTS = 1_000;
const WARM_UP_CLIENTS = 100;
const SETTLE_MS = 2_000;

const KB = 1024;

function measureIdleSockets(context) {
  return async ({ url, server }) => {
    // A first round of clients that come and go compiles the connection code paths, so that the JIT's
    // one-time code is not counted per connection; then the start-up allocations settle.
    const warmUp = await startSocketClients({
      url,
      total: WARM_UP_CLIENTS,
      processes: 1,
      role: 'idle',
    });
    await warmUp.stop();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const before = (await server.ask({ type: 'gc-memory' }, 'gc-memory')).memory;
    const clients = await startSocketClients({
      url,
      total: CLIENTS,
      processes: context.clientProcesses,
      role: 'idle',
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const after = (await server.ask({ type: 'gc-memory' }, 'gc-memory')).memory;
      const per = (key) => (after[key] - before[key]) / CLIENTS / KB;
      return { before, after, per };
    } finally {
      await clients.stop();
    }
  };
}

/**
 * 7. The server's memory after a full collection, before and after 1,000 idle websocket clients connect
 * (clients in child processes, connected but in no room), divided by the number of clients. The limit is a
 * bare socket.io server holding the same clients.
 */
export default {
  id: 'socket-memory',
  title: `7. memory per idle socket (${CLIENTS} websocket clients)`,
  run: async (context) => {
    const parley = await withServer(context, 'socket-memory', measureIdleSockets(context));
    const bare = await withBareServer(context, 'socket-memory', measureIdleSockets(context));
    const { before, after, per } = parley;
    return {
      rows: [
        {
          figure: 'heap per connection',
          value: per('heapUsed'),
          unit: 'KB',
          limit: bare.per('heapUsed'),
          target: ['<', 8],
          eliza: 10.4,
        },
        {
          figure: 'RSS per connection',
          value: per('rss'),
          unit: 'KB',
          limit: bare.per('rss'),
          target: ['<', 10],
          eliza: 10.4,
        },
        {
          figure: 'external per connection',
          value: per('external'),
          unit: 'KB',
          limit: bare.per('external'),
        },
        {
          figure: 'server RSS with clients',
          value: after.rss / KB / KB,
          unit: 'MB',
          limit: bare.after.rss / KB / KB,
        },
      ],
      notes: [
        `heapUsed ${(before.heapUsed / KB / KB).toFixed(1)} → ${(after.heapUsed / KB / KB).toFixed(1)} MB, rss ${(before.rss / KB / KB).toFixed(1)} → ${(after.rss / KB / KB).toFixed(1)} MB after gc`,
      ],
    };
  },
};
