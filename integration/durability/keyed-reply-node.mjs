// @ts-check
/**
 * One Parley process for the keyed-reply crash test, on PostgreSQL (DATABASE_URL) or the embedded database
 * (DATA_DIR), on a free loopback port. Prints one JSON line `{ "url": … }` once it serves.
 *
 * Its model answers "The whole answer." in two chunks; with STALL=1 it stalls after the first one until the
 * reply is aborted, so that the test kills the process mid-reply. REPLY_LEASE_MS sets how long the process
 * holds a keyed reply without renewing it (`idempotency.replyLeaseMs`).
 */
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger, createServer } from '@parley/server';

const databaseUrl = process.env.DATABASE_URL;
const dataDir = process.env.DATA_DIR;
if (!databaseUrl && !dataDir) throw new Error('DATABASE_URL or DATA_DIR is required');
const stall = process.env.STALL === '1';

/** @type {import('@parley/server').ModelProvider} */
const model = {
  name: 'two-chunks',
  callsTools: false,
  async *stream(request) {
    yield { type: 'text-delta', delta: 'The whole ' };
    if (stall) await sleep(600_000, undefined, { signal: request.signal });
    yield { type: 'text-delta', delta: 'answer.' };
  },
};

const server = createServer({
  port: 0,
  env: {},
  logger: createLogger('warn', process.stderr),
  database: databaseUrl
    ? { kind: 'postgres', url: databaseUrl, poolSize: 4 }
    : { kind: 'pglite', dataDir: /** @type {string} */ (dataDir) },
  model,
  idempotency: { replyLeaseMs: Number(process.env.REPLY_LEASE_MS ?? 30_000) },
  shutdownTimeoutMs: 2000,
});
const { url } = await server.start();
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
