import { metadataSchema, ParleyError, parseOrThrow, uuidSchema } from '@parley/core';
import { Hono } from 'hono';
import { z } from 'zod';
import type { MessagingService } from '../../messaging/messaging-service';
import { type Kysely } from 'kysely';
import { JOB_WINDOW, jobHealth, listJobs } from '../../storage/job-queries';
import type { MessageStore } from '../../storage/message-store';
import type { DatabaseSchema } from '../../storage/schema';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';
import { readJsonBody } from '../read-body';

/** elizaOS's `JobValidation` bounds. */
export const JOB_LIMITS = {
  maxContentLength: 50_000,
  defaultTimeoutMs: 30_000,
  minTimeoutMs: 1_000,
  maxTimeoutMs: 300_000,
} as const;

/** `POST /api/messaging/jobs`: elizaOS's `CreateJobRequest`. */
export const createJobBodySchema = z.object({
  agentId: uuidSchema.optional().describe('The agent asked; default: the default agent.'),
  userId: uuidSchema.describe('Who asks.'),
  content: z.string().min(1).max(JOB_LIMITS.maxContentLength),
  metadata: metadataSchema.optional(),
  timeoutMs: z
    .number()
    .int()
    .optional()
    .transform((ms) =>
      Math.min(
        Math.max(ms ?? JOB_LIMITS.defaultTimeoutMs, JOB_LIMITS.minTimeoutMs),
        JOB_LIMITS.maxTimeoutMs,
      ),
    )
    .describe('How long the answer is waited for: default 30 s, clamped to 1 s–300 s.'),
});

/** What a job's question message carries in its metadata, so any process can answer for it. */
const jobFactsSchema = z.object({
  userId: z.string(),
  agentId: z.string(),
  expiresAt: z.number(),
});

/** `GET /api/messaging/jobs`: elizaOS's `ListJobsParams`; a `limit` above the maximum is clamped, as elizaOS does. */
export const listJobsQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .transform((limit) => Math.min(limit ?? 50, 100))
    .describe('How many jobs, newest first: default 50, at most 100 (more is clamped).'),
  status: z.enum(['pending', 'processing', 'completed', 'failed', 'timeout']).optional(),
});

interface JobQuestion {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  createdAt: number;
}

interface JobAnswer {
  id: string;
  content: string;
  authorId: string;
  createdAt: number;
}

/** elizaOS's `JobDetailsResponse` of a question and its first reply; undefined when the message is no job. */
function jobDetails(question: JobQuestion, reply: JobAnswer | undefined, now: number) {
  const facts = jobFactsSchema.safeParse((question.metadata as { job?: unknown }).job);
  if (!facts.success) return undefined;
  const { userId, agentId, expiresAt } = facts.data;
  const { job: _job, ...metadata } = question.metadata;
  const base = {
    jobId: question.id,
    agentId,
    userId,
    prompt: question.content,
    createdAt: question.createdAt,
    expiresAt,
    metadata,
  };
  if (reply && reply.authorId === agentId) {
    return {
      ...base,
      status: 'completed' as const,
      result: {
        message: {
          id: reply.id,
          content: reply.content,
          authorId: reply.authorId,
          createdAt: reply.createdAt,
        },
        processingTimeMs: Math.max(0, reply.createdAt - question.createdAt),
      },
    };
  }
  if (now > expiresAt) {
    return { ...base, status: 'timeout' as const, error: 'The agent did not answer in time' };
  }
  return { ...base, status: 'processing' as const };
}

/**
 * elizaOS's jobs (`jobs.create`, `getJob`, `poll`, `ask`, `list`, `health`): a job is a question in a channel of
 * its own, posted through the normal conversation path (same guards, limits and reply), its answer the agent's
 * reply. Both live in the database, so any process of the cluster answers `getJob`; nothing is kept in memory.
 */
export function jobRoutes(
  messaging: MessagingService,
  store: MessageStore,
  db: Kysely<DatabaseSchema>,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post('/api/messaging/jobs', async (c) => {
    const body = await readJsonBody(c, createJobBodySchema, 'body');
    const createdAt = Date.now();
    const expiresAt = createdAt + body.timeoutMs;
    const channelId = crypto.randomUUID();
    const agent = await messaging.resolveAgent(channelId, body.agentId);
    const { message } = await messaging.converse({
      channelId,
      text: body.content,
      entityId: body.userId,
      source: 'jobs',
      agentId: agent.agentId,
      metadata: {
        ...body.metadata,
        job: { userId: body.userId, agentId: agent.agentId, expiresAt },
      },
    });
    await store.flushed();
    return c.json(success({ jobId: message.id, status: 'processing', createdAt, expiresAt }), 201);
  });

  // Before `/:jobId`, which would read `health` as an id.
  routes.get('/api/messaging/jobs/health', async (c) => {
    const now = Date.now();
    const counts = await jobHealth(db, now);
    const rate = (count: number) => (counts.total === 0 ? 0 : count / counts.total);
    return c.json(
      success({
        healthy: true,
        timestamp: now,
        totalJobs: counts.total,
        statusCounts: {
          pending: 0,
          processing: counts.processing,
          completed: counts.completed,
          failed: 0,
          timeout: counts.timeout,
        },
        metrics: {
          averageProcessingTimeMs: counts.averageProcessingTimeMs,
          successRate: rate(counts.completed),
          failureRate: 0,
          timeoutRate: rate(counts.timeout),
        },
        maxJobs: JOB_WINDOW,
      }),
    );
  });

  routes.get('/api/messaging/jobs', async (c) => {
    const query = parseOrThrow(listJobsQuerySchema, c.req.query(), 'query');
    const now = Date.now();
    // elizaOS's states a Parley job never takes (`pending`, `failed`) match nothing.
    if (query.status === 'pending' || query.status === 'failed') {
      const { total } = await listJobs(db, { limit: 1, now });
      return c.json(success({ jobs: [], total, filtered: 0 }));
    }
    const listed = await listJobs(db, { limit: query.limit, state: query.status, now });
    const jobs = listed.rows.flatMap((row) => {
      const details = jobDetails(
        {
          id: row.id,
          content: row.content,
          metadata: row.metadata,
          createdAt: new Date(row.created_at).getTime(),
        },
        row.reply_id && row.reply_author && row.reply_created_at
          ? {
              id: row.reply_id,
              content: row.reply_content ?? '',
              authorId: row.reply_author,
              createdAt: new Date(row.reply_created_at).getTime(),
            }
          : undefined,
        now,
      );
      return details ? [details] : [];
    });
    return c.json(success({ jobs, total: listed.total, filtered: listed.filtered }));
  });

  routes.get('/api/messaging/jobs/:jobId', async (c) => {
    const jobId = parseOrThrow(uuidSchema, c.req.param('jobId'), 'jobId');
    const question = await store.get(jobId);
    const reply = question && (await store.findReplyTo(jobId));
    const details =
      question &&
      jobDetails(
        {
          id: question.id,
          content: question.content,
          metadata: question.metadata,
          createdAt: Date.parse(question.created_at),
        },
        reply && {
          id: reply.id,
          content: reply.content,
          authorId: reply.author_id,
          createdAt: Date.parse(reply.created_at),
        },
        Date.now(),
      );
    if (!details) throw new ParleyError('NOT_FOUND', `No job ${jobId}`);
    return c.json(success(details));
  });

  return routes;
}
