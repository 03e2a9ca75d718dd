import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cpuPerRow,
  runLatencyClient,
  usageRows,
  withBareServer,
  withServer,
} from '../lib/harness.mjs';
import { layerTimes } from '../lib/profile-layers.mjs';
import { summarize } from '../lib/stats.mjs';

function clientConfig(url, durationMs, warmupRequests) {
  return {
    url,
    path: `/api/messaging/channels/${randomUUID()}/messages`,
    body: { text: 'Hello, how are you today?', entityId: 'bench-user', mode: 'sync' },
    mode: 'sync',
    warmupRequests,
    durationMs,
    maxRequests: 50_000,
  };
}

function measureSync(context) {
  return async ({ url, server, name, bare }) => {
    const { result, usage } = await runLatencyClient(
      context,
      { server, name, bare },
      clientConfig(url, context.durationS * 1000, 200),
    );
    const latency = summarize(result.total);
    const layers = bare ? undefined : await profileLayers(context, { url, server, name });
    return { result, usage, latency, count: latency.count, layers };
  };
}

/**
 * Where a reply's CPU goes, by layer: a second, profiled phase after the measured one (so the profiler's cost
 * stays out of the figures above), split by `lib/profile-layers.mjs`. Main-thread busy time per reply by
 * layer; the rest of the process's CPU per reply (the embedded database's thread, V8's helper threads) as
 * one row.
 */
async function profileLayers(context, { url, server, name }) {
  const profileDir = context.profileDir ?? (await mkdtemp(join(tmpdir(), 'parley-bench-profile-')));
  try {
    const durationMs = Math.min(5, context.durationS) * 1000;
    const { result, usage, profileFile } = await runLatencyClient(
      { ...context, profileDir },
      { server, name: `${name}-layers` },
      clientConfig(url, durationMs, 20),
    );
    const replies = result.total.length;
    if (!profileFile || replies === 0) return undefined;
    const layers = layerTimes(JSON.parse(await readFile(profileFile, 'utf8')));
    layers.delete('(idle)');
    const rows = [...layers]
      .sort((a, b) => b[1] - a[1])
      .map(([layer, us]) => ({ figure: `  ${layer}`, value: us / 1000 / replies, unit: 'ms' }));
    const mainMs = [...layers.values()].reduce((sum, us) => sum + us, 0) / 1000;
    const restMs = usage.serverCpuMs - mainMs;
    if (restMs > 0) {
      rows.push({
        figure: '  other threads (database thread, V8)',
        value: restMs / replies,
        unit: 'ms',
      });
    }
    return {
      rows: [
        { figure: 'per reply by layer (profiled)', value: usage.serverCpuMs / replies, unit: 'ms' },
        ...rows,
      ],
      note: `layers: ${replies} replies profiled; main-thread time per reply by layer (wall time while busy, so a loaded machine inflates it), the process's other CPU as one row`,
    };
  } finally {
    if (!context.profileDir) await rm(profileDir, { recursive: true, force: true });
  }
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
        ...(parley.layers?.rows ?? []),
      ],
      notes: [
        `${latency.count} requests, ${result.errors} errors ${result.lastError ?? ''}`,
        ...(parley.layers ? [parley.layers.note] : []),
      ],
    };
  },
};
