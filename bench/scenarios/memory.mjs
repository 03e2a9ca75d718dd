import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDatabase, startServer, withBareServer } from '../lib/harness.mjs';
import { runWrk } from '../lib/wrk.mjs';

const MB = 1024 * 1024;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** RSS in MB after a full collection, once the process has sat idle for `settleS` seconds. */
async function restingRss(server, settleS) {
  await sleep(settleS * 1000);
  const { memory } = await server.ask({ type: 'gc-memory' }, 'gc-memory');
  return memory.rss / MB;
}

async function stopped(running) {
  await running.server.stop();
}

/**
 * 8. The server's resident memory with the embedded database: at rest after a first start (a new DATA_DIR) and
 * after a reopen of the same folder, right after load (submits, then concurrent sync conversations), and once it
 * settled after that load; beside it the same server on PostgreSQL and the bare server, at rest.
 */
export default {
  id: 'memory',
  title: '8. resident memory (RSS after a full GC)',
  needsWrk: true,
  run: async (context) => {
    const { restS, afterLoadS } = context;
    const dataDir = await mkdtemp(join(tmpdir(), 'parley-bench-memory-'));
    const rows = [];
    try {
      const bare = await withBareServer(context, 'memory', ({ server }) =>
        restingRss(server, restS),
      );
      let running = await startServer(context, { dataDir });
      const firstStart = await restingRss(running.server, restS);
      await stopped(running);
      running = await startServer(context, { dataDir });
      let reopen;
      try {
        reopen = await restingRss(running.server, restS);
        await runWrk({
          url: running.url,
          script: 'submit.lua',
          threads: 1,
          connections: 32,
          durationS: context.durationS,
        });
        await runWrk({
          url: running.url,
          script: 'sync-conversations.lua',
          threads: 16,
          connections: 16,
          durationS: context.durationS,
        });
        const usage = await running.server.ask({ type: 'usage' }, 'usage');
        const afterLoad = await restingRss(running.server, 0);
        const settled = await restingRss(running.server, afterLoadS);
        rows.push(
          {
            figure: 'at rest, first start',
            value: firstStart,
            unit: 'MB',
            limit: bare,
            target: ['<', 150],
            eliza: 461,
          },
          { figure: 'at rest, reopen', value: reopen, unit: 'MB', limit: bare, target: ['<', 150] },
          { figure: 'peak during load', value: usage.maxRssKb / 1024, unit: 'MB', limit: bare },
          { figure: 'right after load', value: afterLoad, unit: 'MB', limit: reopen },
          {
            figure: `${afterLoadS} s after load (limit: at rest)`,
            value: settled,
            unit: 'MB',
            limit: reopen,
            ratioTarget: ['<', 1.2],
          },
        );
      } finally {
        await stopped(running);
      }
      const postgres = await createPostgresDatabase().catch(() => undefined);
      if (postgres) {
        try {
          const onPostgres = await startServer(context, { databaseUrl: postgres.url });
          try {
            rows.push({
              figure: 'at rest, PostgreSQL',
              value: await restingRss(onPostgres.server, restS),
              unit: 'MB',
              limit: bare,
            });
          } finally {
            await stopped(onPostgres);
          }
        } finally {
          await postgres.drop();
        }
      }
      return {
        rows,
        notes: [
          `at rest = ${restS} s idle after start-up; load = ${context.durationS} s of submits then ${context.durationS} s of 16 conversations; limit = the bare server at rest (after load: this server at rest)`,
        ],
      };
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
