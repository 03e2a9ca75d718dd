import { metadataSchema, ParleyError, parseOrThrow, uuidSchema } from '@parley/core';
import { Hono } from 'hono';
import { z } from 'zod';
import type { MessagingService } from '../../messaging/messaging-service';
import type { MessageStore } from '../../storage/message-store';
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

/**
 * elizaOS's jobs (`jobs.create`, `jobs.getJob`, `jobs.poll`, `jobs.ask`): a job is a question in a channel of
 * its own, posted through the normal conversation path (same guards, limits and reply), its answer the agent's
 * reply. Both live in the database, so any process of the cluster answers `getJob`; nothing is kept in memory.
 */
export function jobRoutes(messaging: MessagingService, store: MessageStore): Hono<AppEnv> {
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

  routes.get('/api/messaging/jobs/:jobId', async (c) => {
    const jobId = parseOrThrow(uuidSchema, c.req.param('jobId'), 'jobId');
    const question = await store.get(jobId);
    const facts = jobFactsSchema.safeParse(
      (question?.metadata as { job?: unknown } | undefined)?.job,
    );
    if (!question || !facts.success) throw new ParleyError('NOT_FOUND', `No job ${jobId}`);
    const { userId, agentId, expiresAt } = facts.data;
    const createdAt = Date.parse(question.created_at);
    const reply = await store.findReplyTo(jobId);
    const { job: _job, ...metadata } = question.metadata;
    const base = {
      jobId,
      agentId,
      userId,
      prompt: question.content,
      createdAt,
      expiresAt,
      metadata,
    };
    if (reply && reply.author_id === agentId) {
      const repliedAt = Date.parse(reply.created_at);
      return c.json(
        success({
          ...base,
          status: 'completed',
          result: {
            message: {
              id: reply.id,
              content: reply.content,
              authorId: reply.author_id,
              createdAt: repliedAt,
            },
            processingTimeMs: Math.max(0, repliedAt - createdAt),
          },
        }),
      );
    }
    if (Date.now() > expiresAt) {
      return c.json(
        success({ ...base, status: 'timeout', error: 'The agent did not answer in time' }),
      );
    }
    return c.json(success({ ...base, status: 'processing' }));
  });

  return routes;
}
