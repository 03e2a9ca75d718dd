import { ParleyError, entityIdSchema, parseOrThrow, uuidSchema } from '@parley/core';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { MemoryStore } from '../../memory/memory-store';
import { memoryView, tableNameSchema } from '../../memory/people/memory-views';
import type { ChannelSummaryStore } from '../../memory/summary/channel-summary-store';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';

/** What the memory routes read and change. */
export interface MemoryRoutesOptions {
  store: MemoryStore;
  /** Whether an agent of that id runs here (else 404). */
  agentExists: (agentId: string) => boolean;
  summaries: ChannelSummaryStore;
  /**
   * The entity a caller may see and delete memories of, given the one it asked for (none: the one asked for).
   * The server binds it to the caller (`identity/own-memories.ts`): a person sees only their own, 403 otherwise.
   */
  entityOf?: (c: Context<AppEnv>, requested: string | undefined) => string | undefined;
}

const listQuerySchema = z.object({
  entityId: entityIdSchema.optional(),
  tableName: tableNameSchema.default('facts'),
  roomId: entityIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  includeEmbedding: z.enum(['true', 'false']).optional(),
});

const clearQuerySchema = z.object({
  entityId: entityIdSchema,
  tableName: tableNameSchema.default('facts'),
});

/**
 * What an agent remembers, per person: `GET /api/agents/{agentId}/memories` (filtered by `entityId`,
 * `tableName` (default `facts`), `roomId`), `DELETE …/memories/{memoryId}` and `DELETE …/memories?entityId=`.
 * Deletion removes the rows: a deleted memory is gone from search and from every later prompt, and the agent's
 * running summaries of channels the person wrote in are rebuilt from the stored messages.
 */
export function memoryRoutes(options: MemoryRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const entityOf = options.entityOf ?? ((_c, requested) => requested);
  const agentOf = (c: Context<AppEnv>) => {
    const agentId = parseOrThrow(uuidSchema, c.req.param('agentId'), 'agentId');
    if (!options.agentExists(agentId))
      throw new ParleyError('NOT_FOUND', `Agent ${agentId} not found`);
    return agentId;
  };

  routes.get('/api/agents/:agentId/memories', async (c) => {
    const agentId = agentOf(c);
    const query = parseOrThrow(listQuerySchema, c.req.query(), 'query');
    const entityId = entityOf(c, query.entityId);
    const records = await options.store.get({
      agentId,
      tableName: query.tableName,
      ...(entityId === undefined ? {} : { entityId }),
      ...(query.roomId === undefined ? {} : { roomId: query.roomId }),
      count: query.limit,
      withoutEmbeddings: query.includeEmbedding !== 'true',
    });
    return c.json(
      success({
        memories: records.map((record) => memoryView(record, query.includeEmbedding === 'true')),
      }),
    );
  });

  routes.delete('/api/agents/:agentId/memories/:memoryId', async (c) => {
    const agentId = agentOf(c);
    const memoryId = parseOrThrow(uuidSchema, c.req.param('memoryId'), 'memoryId');
    const record = await options.store.getById(memoryId, agentId);
    // Whose memories the caller may delete (a person: their own; an admin: anyone's). Another person's memory
    // is as absent as a missing one: its existence is not told.
    const own = entityOf(c, undefined);
    if (!record || (own !== undefined && record.entityId !== own)) {
      throw new ParleyError('NOT_FOUND', `Memory ${memoryId} not found`);
    }
    await options.store.delete(memoryId, agentId);
    return c.json(success({ id: memoryId, deleted: true }));
  });

  routes.delete('/api/agents/:agentId/memories', async (c) => {
    const agentId = agentOf(c);
    const query = parseOrThrow(clearQuerySchema, c.req.query(), 'query');
    const entityId = entityOf(c, query.entityId) ?? query.entityId;
    const deleted = await options.store.deleteAll({
      agentId,
      tableName: query.tableName,
      entityId,
    });
    const summaries = await options.summaries.forgetEntity(agentId, entityId);
    return c.json(success({ deleted, summariesForgotten: summaries }));
  });

  return routes;
}
