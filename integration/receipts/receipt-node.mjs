// @ts-check
// A Parley server process for the receipts cluster test: PostgreSQL at DATABASE_URL, the built-in TEE simulator
// with SALT (every process of a cluster has the same salt, so the same agent keys). Prints `{"url": …}` once it
// serves; SIGTERM stops it.
import process from 'node:process';
import { createLogger, createServer, parseTeeConfig } from '@parley/server';

const server = createServer({
  port: 0,
  env: {},
  logger: createLogger('silent'),
  database: { kind: 'postgres', url: process.env.DATABASE_URL ?? '' },
  tee: parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: process.env.SALT ?? '' }),
  rateLimit: false,
});
const { url } = await server.start();
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.once('SIGTERM', () => {
  void server.stop().then(() => process.exit(0));
});
