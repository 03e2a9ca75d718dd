import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { ScriptedModel } from '../../test/scripted-model';
import { historyOf, postWithKey as post } from '../../test/keyed-requests';
import { startTestServer } from '../../test/test-server';
import { createServer, type ServerOptions } from '../create-server';
import { createLogger } from '../logger';

/**
 * `Idempotency-Key` records are kept for a window, then gone: attacked from outside over HTTP, on every
 * database, and with several processes sharing one PostgreSQL database removing a backlog together.
 */

const kinds = await databaseKinds();
const postgres = kinds.find((kind) => kind.name === 'postgres')!;

/** Runs `query` on a PostgreSQL test database. */
async function query<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe.each(kinds)('keys past their window ($name)', ({ create, skip }) => {
  it.skipIf(skip)(
    'are new again: the same key posts a new message, with any body; within the window another body is a 409',
    async () => {
      await using test = await startTestServer(
        {
          model: new ScriptedModel(),
          // Long enough that the second try below is well within it, short enough to wait out.
          idempotency: { keyTtlMs: 4_000, sweepMs: 100 },
        },
        await create(),
      );
      const { url } = test;
      const channelId = randomUUID();
      const key = `order-${randomUUID()}`;
      const first = { text: 'Book the table', entityId: 'user-1', mode: 'websocket' };
      const other = { ...first, text: 'Cancel the table' };
      const taken = await post(url, channelId, first, key);
      expect(taken.status).toBe(202);
      const firstId = ((await taken.json()) as { userMessage: { id: string } }).userMessage.id;
      expect((await post(url, channelId, other, key)).status).toBe(409);

      // Past the window, the key is a new request: another body is taken, as a message of its own.
      let second: Response | undefined;
      await expect
        .poll(
          async () => {
            second = await post(url, channelId, other, key);
            return second.status;
          },
          { timeout: 60_000, interval: 500 },
        )
        .toBe(202);
      const secondId = ((await second!.json()) as { userMessage: { id: string } }).userMessage.id;
      expect(secondId).not.toBe(firstId);
      // Now the key is the second request's: the first body is the different one.
      expect((await post(url, channelId, first, key)).status).toBe(409);
      const texts = (await historyOf(url, channelId)).map((message) => message.content);
      expect(texts.filter((text) => text === 'Book the table')).toHaveLength(1);
      expect(texts.filter((text) => text === 'Cancel the table')).toHaveLength(1);
    },
    120_000,
  );
});

/** A logger whose debug lines of removed keys are collected. */
function removalLog() {
  const removals: { removed: number; limit: number }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line.includes('expired idempotency keys removed')) continue;
        removals.push(JSON.parse(line) as { removed: number; limit: number });
      }
      done();
    },
  });
  return { removals, logger: createLogger('debug', stream) };
}

describe('removing expired keys across processes', () => {
  it.skipIf(postgres.skip)(
    'three processes on one PostgreSQL remove a backlog in bounded batches, each key once, and keep what is live',
    async () => {
      const database = await postgres.create();
      const url = database.location.kind === 'postgres' ? database.location.url : '';
      const batch = 150;
      const logs = [0, 1, 2].map(() => removalLog());
      const options = (logger: ReturnType<typeof createLogger>): ServerOptions => ({
        port: 0,
        logger,
        env: {},
        model: new ScriptedModel(),
        database: database.location,
        idempotency: { keyTtlMs: 3_600_000, sweepMs: 20, sweepBatch: batch },
      });
      const servers = logs.map(({ logger }) => createServer(options(logger)));
      try {
        const urls: string[] = [];
        for (const server of servers) urls.push((await server.start()).url);
        // Written once all three sweep, so that they remove it together.
        const backlog = 3_000;
        await query(
          url,
          `insert into idempotency_keys (id, fingerprint, message_id, created_at)
           select gen_random_uuid(), 'old', gen_random_uuid(), now() - interval '2 days'
           from generate_series(1, $1)`,
          [backlog],
        );
        // An old key whose reply is still being produced by a live process stays.
        const running = randomUUID();
        await query(
          url,
          `insert into idempotency_keys
             (id, fingerprint, message_id, reply_id, reply_owner, reply_lease_until, created_at)
           values ($1, 'old', gen_random_uuid(), gen_random_uuid(), 'alive',
                   now() + interval '1 hour', now() - interval '2 days')`,
          [running],
        );

        // Keyed requests keep working while the backlog goes: 30 released together over the three processes.
        const keys = Array.from({ length: 30 }, () => randomUUID());
        const channels = keys.map(() => randomUUID());
        const body = (index: number) => ({
          text: `fresh ${index}`,
          entityId: 'user-1',
          mode: 'websocket',
        });
        const answers = await Promise.all(
          keys.map((key, index) => post(urls[index % 3]!, channels[index]!, body(index), key)),
        );
        expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(202));
        const ids = await Promise.all(
          answers.map(async (answer) => {
            return ((await answer.json()) as { userMessage: { id: string } }).userMessage.id;
          }),
        );

        await expect
          .poll(
            async () =>
              Number(
                (
                  await query<{ count: string }>(
                    url,
                    `select count(*) from idempotency_keys where fingerprint = 'old'`,
                  )
                )[0]!.count,
              ),
            { timeout: 60_000, interval: 200 },
          )
          .toBe(1);
        const left = await query<{ id: string }>(
          url,
          `select id from idempotency_keys where fingerprint = 'old'`,
        );
        expect(left.map((row) => row.id)).toEqual([running]);
        // Every removal took at most one batch; together they removed each expired key once.
        const removals = logs.flatMap((log) => log.removals);
        expect(removals.every((removal) => removal.removed <= batch)).toBe(true);
        expect(removals.reduce((sum, removal) => sum + removal.removed, 0)).toBe(backlog);
        expect(removals.length).toBeGreaterThanOrEqual(backlog / batch);

        // The fresh keys are all kept and still answer with their first message.
        const again = await Promise.all(
          keys.map((key, index) =>
            post(urls[(index + 1) % 3]!, channels[index]!, body(index), key),
          ),
        );
        const againIds = await Promise.all(
          again.map(async (answer) => {
            return ((await answer.json()) as { userMessage: { id: string } }).userMessage.id;
          }),
        );
        expect(againIds).toEqual(ids);
      } finally {
        for (const server of servers) await server.stop();
        await database.dispose();
      }
    },
    180_000,
  );
});
