// @ts-check
/**
 * One Parley process on the embedded database in DATA_DIR (the default set-up), on a free loopback port. Prints
 * one JSON line `{ "url": … }` once it serves. The durability tests kill it with SIGKILL and start it again.
 */
import process from 'node:process';
import { setInterval } from 'node:timers';
import { createLogger, createServer } from '@parley/server';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');

// WEBHOOKS: the outbound webhook options as JSON (the webhook durability test).
/** @type {import('@parley/server').ServerOptions['webhooks']} */
const webhooks = process.env.WEBHOOKS
  ? /** @type {import('@parley/server').ServerOptions['webhooks']} */ (
      JSON.parse(process.env.WEBHOOKS)
    )
  : undefined;

const server = createServer({
  port: 0,
  env: {},
  logger: createLogger('warn', process.stderr),
  database: { kind: 'pglite', dataDir },
  replyLimits: { maxQueuedPerChannel: 1000 },
  ...(webhooks ? { webhooks } : {}),
});
const { url } = await server.start();
process.stdout.write(`${JSON.stringify({ url })}\n`);

// With REPORT_MS, a line of vital signs every REPORT_MS: resident memory and event-loop delay.
const reportMs = Number(process.env.REPORT_MS ?? 0);
if (reportMs > 0) {
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  setInterval(() => {
    globalThis.gc?.();
    const vitals = {
      rssMb: process.memoryUsage().rss / 2 ** 20,
      delayP99Ms: delay.percentile(99) / 1e6,
      delayMaxMs: delay.max / 1e6,
    };
    delay.reset();
    process.stdout.write(`${JSON.stringify({ vitals })}\n`);
  }, reportMs).unref();
}
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
