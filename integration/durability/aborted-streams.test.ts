import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createLogger, createServer } from '@parley/server';
import { expect, it } from 'vitest';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const STREAMS = 1000;

/** Handles this process holds, by kind (sockets, timers…), after a full collection. */
function settle() {
  gc();
  const kinds = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
  return { handles: kinds.length, heap: process.memoryUsage().heapUsed };
}

/**
 * 1,000 `stream` requests abandoned by their clients after the first event: once their replies have ended,
 * the server's handles and heap are back where they started (no timer, socket or stream left behind).
 */
it('brings handles and memory back to baseline after 1,000 aborted streams', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'parley-abort-'));
  const server = createServer({
    port: 0,
    env: {},
    logger: createLogger('silent'),
    database: { kind: 'pglite', dataDir },
    replyLimits: { maxQueuedPerChannel: STREAMS, maxQueuedTotal: STREAMS * 2 },
  });
  const { url } = await server.start();
  try {
    const channelId = randomUUID();
    const abandon = async () => {
      const controller = new AbortController();
      const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'I feel restless', entityId: 'u', mode: 'stream' }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.closed.catch(() => undefined);
    };
    // Warm up (first requests compile code and fill caches), then measure.
    for (let i = 0; i < 20; i += 1) await abandon();
    const done = async () => {
      const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages?limit=1`);
      return ((await response.json()) as { data: { messages: { source_type: string }[] } }).data
        .messages[0]?.source_type;
    };
    await expect.poll(done, { timeout: 30_000 }).toBe('agent_response');
    const baseline = settle();

    for (let batch = 0; batch < STREAMS / 50; batch += 1) {
      await Promise.all(Array.from({ length: 50 }, abandon));
    }
    // Every abandoned reply still ends (stored, the last message of the channel).
    await expect.poll(done, { timeout: 60_000 }).toBe('agent_response');
    await expect
      .poll(() => settle().handles, { timeout: 20_000 })
      .toBeLessThanOrEqual(baseline.handles);
    const after = settle();
    expect(after.heap - baseline.heap).toBeLessThan(16 * 1024 * 1024);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}, 240_000);
