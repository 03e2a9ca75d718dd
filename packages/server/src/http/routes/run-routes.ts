import { ParleyError, parseOrThrow, uuidSchema, type StoredMessage } from '@parley/core';
import { ChannelAccess, askerOf, assertReadOnRequest } from '../../identity/channel-access';
import { Hono } from 'hono';
import { z } from 'zod';
import type { AgentManager } from '../../agents/agent-manager';
import { REPLY_SOURCES, type MessagingService } from '../../messaging/messaging-service';
import type { ReplyPart } from '../../reply/parts/reply-part';
import { ReplyStream } from '../../reply/parts/reply-stream';
import type { MessageStore } from '../../storage/message-store';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';

/** Most runs one listing returns; a larger `limit` is clamped to it, as elizaOS clamps. */
export const MAX_RUNS = 100;
/** Runs listed when no `limit` is given (elizaOS's default). */
const DEFAULT_RUNS = 50;

const epochMs = z.coerce.number().int().min(0).max(8.64e15);

/** `GET /api/agents/{agentId}/runs` query: elizaOS's `ListRunsParams`. */
export const listRunsQuerySchema = z.object({
  roomId: uuidSchema.optional().describe('Only the runs of this channel.'),
  status: z
    .enum(['completed', 'timeout', 'error', 'started', 'all'])
    .optional()
    .describe('Only runs of this status (the stored runs are all `completed`).'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .transform((limit) => Math.min(limit ?? DEFAULT_RUNS, MAX_RUNS))
    .describe(`How many, newest first: default ${DEFAULT_RUNS}, above ${MAX_RUNS} clamped to it.`),
  from: epochMs.optional().describe('Runs started at or after this instant (epoch ms).'),
  to: epochMs.optional().describe('Runs started at or before this instant (epoch ms).'),
});

type RunStatus = 'completed' | 'error' | 'started';

/** The steps of one reply as elizaOS's `RunDetail`: its summary and its events. */
export function runDetailOf(parts: readonly ReplyPart[], at: number | null) {
  const start = parts[0]?.type === 'reply-start' ? parts[0] : undefined;
  const timestamp = at ?? Date.now();
  const events: { type: string; timestamp: number; data: Record<string, unknown> }[] = [];
  let status: RunStatus = 'started';
  let actions = 0;
  let errors = 0;
  const steps = new Set<number>();
  for (const part of parts) {
    switch (part.type) {
      case 'reply-start':
        events.push({ type: 'RUN_STARTED', timestamp, data: { roomId: part.channelId } });
        break;
      case 'tool-call':
        actions += 1;
        steps.add(part.step);
        events.push({
          type: 'ACTION_STARTED',
          timestamp,
          data: {
            actionId: part.toolCallId,
            actionName: part.toolName,
            step: part.step,
            input: part.input,
          },
        });
        break;
      case 'tool-result':
        if (part.error !== undefined) errors += 1;
        events.push({
          type: 'ACTION_COMPLETED',
          timestamp,
          data: {
            actionId: part.toolCallId,
            actionName: part.toolName,
            step: part.step,
            success: part.error === undefined,
            ...(part.error === undefined ? { output: part.output } : { error: part.error }),
          },
        });
        break;
      case 'reply-end':
        status = 'completed';
        events.push({ type: 'RUN_ENDED', timestamp, data: { status, text: part.text } });
        break;
      case 'error':
        status = 'error';
        errors += 1;
        events.push({ type: 'RUN_ENDED', timestamp, data: { status, code: part.code } });
        break;
      // elizaOS's run has no event for text, an approval asked or a pause: the run is still `started`.
      case 'text-delta':
      case 'approval-request':
      case 'reply-pause':
        break;
      default:
        part satisfies never;
    }
  }
  const ended = status !== 'started';
  return {
    summary: {
      runId: start?.replyId ?? parts[0]?.replyId,
      status,
      startedAt: at,
      endedAt: ended ? at : null,
      durationMs: null,
      ...(start?.inReplyTo ? { messageId: start.inReplyTo } : {}),
      ...(start ? { roomId: start.channelId, entityId: start.agentId } : {}),
      // One model call per step that called tools, and the one that answered.
      counts: { actions, modelCalls: steps.size + (ended ? 1 : 0), errors, evaluators: 0 },
    },
    events,
  };
}

/** A stored reply as a run summary (a stored reply has ended). */
function summaryOf(message: StoredMessage) {
  return runDetailOf(ReplyStream.ofStored(message).parts, Date.parse(message.created_at)).summary;
}

/**
 * elizaOS's runs (`runs.listRuns`, `runs.getRun`): a run is one reply of the agent, its events the reply's
 * steps (`parley reply` reads the same through `/api/messaging/replies/{replyId}/events`). An unknown agent is
 * 404, a run of another agent 404 as an unknown one.
 */
export function runRoutes(
  agents: AgentManager,
  messaging: MessagingService,
  store: MessageStore,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const idOf = (value: string | undefined, name: string) => parseOrThrow(uuidSchema, value, name);

  routes.get('/api/agents/:agentId/runs', async (c) => {
    const { id: agentId } = await agents.details(idOf(c.req.param('agentId'), 'agentId'));
    const query = parseOrThrow(listRunsQuerySchema, c.req.query(), 'query');
    // An agent's runs span every channel: a person lists those of a channel of theirs only.
    if (!ChannelAccess.isAdmin(askerOf(c))) {
      if (query.roomId === undefined) {
        throw new ParleyError('FORBIDDEN', 'Name a roomId of yours to list its runs');
      }
      await assertReadOnRequest(c, query.roomId);
    }
    if (query.status !== undefined && query.status !== 'all' && query.status !== 'completed') {
      return c.json(success({ runs: [], total: 0, hasMore: false }));
    }
    // One more than asked, to say whether there are more.
    const messages = await store.listByAuthor(agentId, {
      limit: query.limit + 1,
      sources: [...REPLY_SOURCES],
      ...(query.roomId !== undefined && { channelId: query.roomId }),
      ...(query.from !== undefined && { from: new Date(query.from) }),
      ...(query.to !== undefined && { to: new Date(query.to) }),
    });
    const runs = messages.slice(0, query.limit).map(summaryOf);
    return c.json(success({ runs, total: runs.length, hasMore: messages.length > query.limit }));
  });

  routes.get('/api/agents/:agentId/runs/:runId', async (c) => {
    const { id: agentId } = await agents.details(idOf(c.req.param('agentId'), 'agentId'));
    const runId = idOf(c.req.param('runId'), 'runId');
    const roomId = c.req.query('roomId');
    const channelId = roomId === undefined ? undefined : idOf(roomId, 'roomId');
    // Read once, never followed: a reply waiting for approvals is shown as it stands.
    const stream = await messaging.openReply(runId, channelId, AbortSignal.abort());
    await assertReadOnRequest(c, stream.channelId);
    const start = stream.parts[0];
    if (start?.type !== 'reply-start' || start.agentId !== agentId) {
      throw new ParleyError('NOT_FOUND', `No run ${runId} of this agent`);
    }
    const end = stream.final;
    const stored = end?.type === 'reply-end' ? end.message : null;
    return c.json(
      success(runDetailOf(stream.parts, stored ? Date.parse(stored.created_at) : null)),
    );
  });

  return routes;
}
