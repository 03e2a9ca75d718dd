import { randomUUID } from 'node:crypto';
import { ElizaClient } from '@elizaos/api-client';
import { createLogger, createServer, type ModelProvider, type ParleyServer } from '@parley/server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * elizaOS's jobs across a cluster: two real Parley servers on one PostgreSQL database; a job created on one is
 * polled to its answer on the other, with `@elizaos/api-client` 1.7.2 on both sides.
 */
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TOKEN = 'eliza-jobs-cluster-token';
const AGENT = { name: 'Eliza', id: 'b850bc30-45f8-0041-a00a-83df46d8555d' };
const name = `parley_jobs_${randomUUID().replaceAll('-', '')}`;

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const reachable = await adminQuery('select 1').then(
  () => true,
  (error: unknown) => {
    // Printed on purpose: a silent skip would hide an untested promise.
    // eslint-disable-next-line no-console
    console.warn(`skipping the jobs cluster test: ${(error as Error).message}`);
    return false;
  },
);

const echoModel: ModelProvider = {
  name: 'echo',
  callsTools: false,
  // eslint-disable-next-line @typescript-eslint/require-await
  async *stream(request) {
    const last = request.messages.at(-1);
    yield {
      type: 'text-delta',
      delta: `echo: ${typeof last?.content === 'string' ? last.content : ''}`,
    };
    yield { type: 'finish', finishReason: 'stop' };
  },
};

const servers: ParleyServer[] = [];
const urls: string[] = [];

beforeAll(async () => {
  if (!reachable) return;
  await adminQuery(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  for (let i = 0; i < 2; i += 1) {
    const server = createServer({
      port: 0,
      logger: createLogger('silent'),
      env: {},
      authToken: TOKEN,
      characters: [AGENT],
      model: echoModel,
      database: { kind: 'postgres', url: url.toString(), poolSize: 4 },
    });
    servers.push(server);
    // One at a time: both migrate the same database.
    urls.push((await server.start()).url);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  if (reachable) await adminQuery(`drop database if exists ${name} with (force)`);
});

describe.skipIf(!reachable)('@elizaos/api-client 1.7.2: jobs across processes', () => {
  it('a job created on one server is answered when polled on the other', async () => {
    const [first, second] = urls.map((baseUrl) => new ElizaClient({ baseUrl, apiKey: TOKEN }));
    const question = `cluster question ${randomUUID()}`;
    const created = await first!.jobs.create({ userId: randomUUID(), content: question });
    const polled = await second!.jobs.poll(created.jobId, { interval: 50, maxAttempts: 200 });
    expect(polled.success).toBe(true);
    expect(polled.job).toMatchObject({
      jobId: created.jobId,
      status: 'completed',
      prompt: question,
    });
    expect(polled.job.result?.message.content).toContain(question);
    // Listed and counted alike by both processes: nothing of it lives in one process's memory.
    const [listedFirst, listedSecond] = await Promise.all([
      first!.jobs.list({ status: 'completed' as never }),
      second!.jobs.list({ status: 'completed' as never }),
    ]);
    expect(listedFirst.jobs.map((job) => job.jobId)).toContain(created.jobId);
    expect(listedSecond).toEqual(listedFirst);
    const [healthFirst, healthSecond] = await Promise.all([
      first!.jobs.health(),
      second!.jobs.health(),
    ]);
    expect(healthSecond.statusCounts).toEqual(healthFirst.statusCounts);
    expect(healthFirst.statusCounts.completed).toBeGreaterThanOrEqual(1);
  });

  it('listByAuthor (runs) and the jobs listing read through their indexes (migration 0028)', async () => {
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      // The planner would scan a table this small whatever its indexes; forbid it to, as on a large one.
      await client.query('set enable_seqscan = off');
      const plan = async (text: string, values: unknown[]) =>
        (await client.query(`explain ${text}`, values)).rows
          .map((row: Record<string, string>) => row['QUERY PLAN'])
          .join('\n');
      // The query MessageStore.listByAuthor sends (runs of an agent, newest first).
      const runs = await plan(
        `select id from messages where author_id = $1 and source_type in ($2, $3)
         order by created_at desc, seq desc limit 20`,
        [AGENT.id, 'agent_response', 'jobs'],
      );
      expect(runs).toContain('messages_author_idx');
      const jobs = await plan(
        `select id from messages q where q.source_type = 'jobs' order by q.created_at desc, q.seq desc limit 10000`,
        [],
      );
      expect(jobs).toContain('messages_jobs_idx');
    } finally {
      await client.end();
    }
  });
});
