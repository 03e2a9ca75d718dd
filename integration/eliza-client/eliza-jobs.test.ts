import { randomUUID } from 'node:crypto';
import { ApiError, ElizaClient } from '@elizaos/api-client';
import type { ModelProvider } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

/**
 * elizaOS's jobs through its own client (`@elizaos/api-client` 1.7.2): ask an agent, poll for the answer. The
 * model echoes the question, so the answer proves it came from this job; a model that never answers shows the
 * timeout.
 */
const TOKEN = 'eliza-jobs-token';
const AGENT = { name: 'Eliza', id: 'b850bc30-45f8-0041-a00a-83df46d8555d' };

const echoModel: ModelProvider = {
  name: 'echo',
  callsTools: false,
  async *stream(request) {
    const last = request.messages.at(-1);
    const text = typeof last?.content === 'string' ? last.content : '';
    if (text.includes('never answer')) {
      // Waits until the reply is aborted (the server stops).
      await new Promise((resolve) => request.signal?.addEventListener('abort', resolve));
      return;
    }
    yield { type: 'text-delta', delta: `echo: ${text}` };
    yield { type: 'finish', finishReason: 'stop' };
  },
};

let running: TestServer;
let eliza: ElizaClient;

beforeAll(async () => {
  running = await startServer({ authToken: TOKEN, characters: [AGENT], model: echoModel });
  eliza = new ElizaClient({ baseUrl: running.url, apiKey: TOKEN });
});
afterAll(() => running?.server.stop());

async function statusOf(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
  return undefined;
}

describe('@elizaos/api-client 1.7.2: jobs', () => {
  it('jobs.ask answers with the agent reply', async () => {
    const question = `what is ${randomUUID()}?`;
    const answer = await eliza.jobs.ask(randomUUID(), question, AGENT.id as never, {
      interval: 50,
      maxAttempts: 200,
    });
    expect(answer).toContain(question);
  });

  it('jobs.create then jobs.poll: processing, then completed with the result', async () => {
    const userId = randomUUID();
    const created = await eliza.jobs.create({
      userId: userId,
      content: 'ping job',
      metadata: { tag: 'x' },
    });
    expect(created).toMatchObject({ jobId: expect.any(String), status: 'processing' });
    expect(created.expiresAt - created.createdAt).toBe(30_000);
    const polled = await eliza.jobs.poll(created.jobId, { interval: 50, maxAttempts: 200 });
    expect(polled.success).toBe(true);
    expect(polled.job).toMatchObject({
      jobId: created.jobId,
      status: 'completed',
      agentId: AGENT.id,
      userId,
      prompt: 'ping job',
      metadata: { tag: 'x' },
    });
    expect(polled.job.result?.message.content).toContain('ping job');
    expect(polled.job.result?.message.authorId).toBe(AGENT.id);
  });

  it('a job the agent does not answer in time times out, with timeoutMs clamped to at least 1 s', async () => {
    const created = await eliza.jobs.create({
      userId: randomUUID(),
      content: 'never answer this',
      timeoutMs: 1,
    });
    expect(created.expiresAt - created.createdAt).toBe(1_000);
    const polled = await eliza.jobs.poll(created.jobId, { interval: 100, maxAttempts: 100 });
    expect(polled.success).toBe(false);
    expect(polled.job.status).toBe('timeout');
    expect(polled.job.result).toBeUndefined();
  });

  it('jobs.list shows the newest jobs with their states; jobs.health counts them', async () => {
    const userId = randomUUID();
    const answered = await eliza.jobs.createAndPoll(
      { userId, content: `listed ${randomUUID()}` },
      { interval: 50, maxAttempts: 200 },
    );
    expect(answered.success).toBe(true);
    const waiting = await eliza.jobs.create({ userId, content: 'never answer: listed' });

    const all = await eliza.jobs.list({ limit: 1000 });
    // A limit above the maximum is clamped (as elizaOS does), not refused.
    expect(all.jobs.length).toBeLessThanOrEqual(100);
    expect(all.total).toBeGreaterThanOrEqual(2);
    const mine = all.jobs.filter((job) => job.userId === userId);
    expect(mine.map((job) => [job.jobId, job.status])).toEqual([
      [waiting.jobId, 'processing'],
      [answered.job.jobId, 'completed'],
    ]);
    expect(mine[1]?.result?.message.content).toContain('listed');

    const completed = await eliza.jobs.list({ status: 'completed' as never, limit: 100 });
    expect(completed.jobs.every((job) => String(job.status) === 'completed')).toBe(true);
    expect(completed.jobs.map((job) => job.jobId)).toContain(answered.job.jobId);
    expect(completed.jobs.map((job) => job.jobId)).not.toContain(waiting.jobId);
    expect(completed.filtered).toBeLessThan(completed.total);
    const failed = await eliza.jobs.list({ status: 'failed' as never });
    expect(failed).toMatchObject({ jobs: [], filtered: 0, total: all.total });
    const one = await eliza.jobs.list({ limit: 1 });
    expect(one.jobs.map((job) => job.jobId)).toEqual([waiting.jobId]);

    const health = await eliza.jobs.health();
    expect(health).toMatchObject({ healthy: true, totalJobs: all.total, maxJobs: 10_000 });
    expect(health.statusCounts.completed).toBeGreaterThanOrEqual(1);
    expect(health.statusCounts.processing).toBeGreaterThanOrEqual(1);
    expect(
      health.statusCounts.completed + health.statusCounts.processing + health.statusCounts.timeout,
    ).toBe(health.totalJobs);
    expect(health.metrics.successRate).toBeCloseTo(
      health.statusCounts.completed / health.totalJobs,
    );
  });

  it('jobs.list and jobs.health refuse bad queries and callers without the key', async () => {
    const keyless = new ElizaClient({ baseUrl: running.url });
    const statuses = await Promise.all([
      statusOf(eliza.jobs.list({ limit: 0 })),
      statusOf(eliza.jobs.list({ limit: 'x' as never })),
      statusOf(eliza.jobs.list({ status: 'done' as never })),
      statusOf(keyless.jobs.list()),
      statusOf(keyless.jobs.health()),
    ]);
    expect(statuses).toEqual([400, 400, 400, 401, 401]);
  });

  it('bad input is a clear 4xx; the key is needed; a message that is no job is 404', async () => {
    const keyless = new ElizaClient({ baseUrl: running.url });
    const plain = await eliza.messaging.submitMessage({
      agentId: AGENT.id as never,
      channelId: randomUUID(),
      content: 'not a job',
    });
    const statuses = await Promise.all([
      statusOf(eliza.jobs.create({ userId: randomUUID(), content: '' })),
      statusOf(eliza.jobs.create({ userId: 'me' as never, content: 'hi' })),
      statusOf(eliza.jobs.create({ userId: randomUUID(), content: 'x'.repeat(50_001) })),
      statusOf(eliza.jobs.create({ userId: randomUUID(), content: 'hi', agentId: randomUUID() })),
      statusOf(eliza.jobs.getJob(randomUUID())),
      statusOf(eliza.jobs.getJob('nope')),
      statusOf(eliza.jobs.getJob(plain.id)),
      statusOf(keyless.jobs.create({ userId: randomUUID(), content: 'hi' })),
      statusOf(keyless.jobs.getJob(randomUUID())),
    ]);
    expect(statuses).toEqual([400, 400, 400, 404, 404, 400, 404, 401, 401]);
  });
});
