// @ts-check
/**
 * One Parley process of the scale tests: the built @parley/server on a free loopback port, on the PostgreSQL
 * database in DATABASE_URL, with rooms shared through PostgreSQL or, with REDIS_URL, Redis. Prints one JSON line
 * `{ "url": … }` once it serves, and stops on SIGTERM.
 *
 * The model is the offline ELIZA responder, slowed down by `[delay N]` (milliseconds) in the message it answers,
 * so that a test can make an earlier reply take longer than a later one. A plugin route, POST /scale/schedule,
 * schedules a message through the agent runtime.
 */
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { definePlugin, defineRoute } from '@parley/plugin-sdk';
import { createElizaModel, createLogger, createServer } from '@parley/server';
import { loadConfig, toServerOptions } from '@parley/server/config';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const redisUrl = process.env.REDIS_URL;

const eliza = createElizaModel();
/**
 * ELIZA, after the delay the answered message asks for.
 *
 * @param {import('@parley/server').ModelRequest} request
 * @returns {AsyncIterable<import('@parley/server').ModelStreamPartV2>}
 */
async function* delayedEliza(request) {
  const answered = request.messages.at(-1)?.content ?? '';
  const delay = /\[delay (\d+)\]/.exec(answered);
  if (delay) await sleep(Number(delay[1]));
  yield* eliza.stream(request);
}
const model = {
  specificationVersion: /** @type {const} */ ('v2'),
  name: 'eliza-with-delays',
  callsTools: true,
  stream: delayedEliza,
};

const schedulePlugin = definePlugin({
  name: 'scale-test',
  routes: [
    defineRoute({
      type: 'POST',
      path: '/scale/schedule',
      handler: async (request, response, runtime) => {
        const body = /** @type {{ channelId: string; text: string; sendAt: string }} */ (
          request.body
        );
        const scheduled = await runtime.scheduleMessage({
          channelId: body.channelId,
          text: body.text,
          sendAt: new Date(body.sendAt),
        });
        response.status(200).json({ success: true, id: scheduled.id });
      },
    }),
  ],
});

// The guards and webhooks come from the settings alone (TRUST_PROXY, ALLOWED_HOSTS, RATE_LIMIT_*, WEBHOOK_*…), as
// an operator sets them.
const { trustProxy, allowedHosts, allowedOrigins, rateLimit, connections, webhooks } =
  toServerOptions(await loadConfig({ env: process.env }));

const server = createServer({
  trustProxy,
  allowedHosts,
  allowedOrigins,
  rateLimit,
  connections,
  webhooks,
  port: 0,
  env: {},
  logger: createLogger('warn', process.stderr),
  database: { kind: 'postgres', url: databaseUrl, poolSize: 5 },
  cluster: redisUrl ? { kind: 'redis', url: redisUrl } : undefined,
  model,
  plugins: [schedulePlugin],
  schedulerPollMs: 100,
  shutdownTimeoutMs: 2000,
  // The tests send bursts from one client; the per-socket limit is not what they measure.
  socketRateLimit: { burst: 10_000, perSecond: 10_000 },
  // The scale bench connects up to 1,000 clients from one address; per-address handshake limits are not measured.
  socketHandshakeLimit: { burst: 1_000_000, perSecond: 1_000_000 },
});
const { url } = await server.start();
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.once('SIGTERM', () => {
  void server.stop().then(() => process.exit(0));
});
