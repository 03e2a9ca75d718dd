import { ParleyError, parseOrThrow, uuidSchema } from '@parley/core';
import { Hono } from 'hono';
import { z } from 'zod';
import type { AgentManager } from '../../agents/agent-manager';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';
import { readJsonBody } from '../read-body';

/** `POST /api/agents`: elizaOS's `{characterJson}` or `{agent}`, or the character itself. */
export const createAgentBodySchema = z
  .looseObject({
    characterJson: z.record(z.string(), z.unknown()).optional(),
    agent: z.record(z.string(), z.unknown()).optional(),
    characterPath: z.unknown().optional(),
  })
  .describe(
    'The character: `{ "characterJson": {...} }` or `{ "agent": {...} }` as elizaOS clients send it, or the ' +
      'character object itself. Checked exactly as a character file is (an unknown key is refused).',
  );

/** `PATCH /api/agents/{agentId}`: character fields to replace. */
export const updateAgentBodySchema = z
  .record(z.string(), z.unknown())
  .describe(
    "Character fields whose values replace the agent's (`name`, `bio`, `system`, `settings`…); the result is " +
      'checked as a character file is. The id cannot change.',
  );

function characterOf(body: z.output<typeof createAgentBodySchema>): unknown {
  if (body.characterPath !== undefined) {
    throw new ParleyError(
      'BAD_REQUEST',
      'characterPath is not read over HTTP (the server reads no file a request names); send characterJson',
    );
  }
  return body.characterJson ?? body.agent ?? body;
}

/**
 * Agents as a resource: the list and one agent's details for every caller with the token; creating, changing,
 * starting, stopping and deleting only with `AGENT_MANAGEMENT=true` (403 otherwise, before the body is read).
 * Shapes as elizaOS's server answers them (`@elizaos/api-client`), inside Parley's envelope.
 */
export function agentRoutes(agents: AgentManager): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const idOf = (value: string | undefined) => parseOrThrow(uuidSchema, value, 'agentId');

  routes.get('/api/agents', (c) => c.json(success({ agents: agents.list() })));

  routes.get('/api/agents/:agentId', async (c) =>
    c.json(success(await agents.details(idOf(c.req.param('agentId'))))),
  );

  routes.post('/api/agents', async (c) => {
    agents.assertAllowed();
    const body = await readJsonBody(c, createAgentBodySchema, 'body');
    return c.json(success(await agents.create(characterOf(body))), 201);
  });

  routes.patch('/api/agents/:agentId', async (c) => {
    agents.assertAllowed();
    const agentId = idOf(c.req.param('agentId'));
    const body = await readJsonBody(c, updateAgentBodySchema, 'body');
    return c.json(success(await agents.update(agentId, body)));
  });

  routes.post('/api/agents/:agentId/start', async (c) => {
    agents.assertAllowed();
    return c.json(success(await agents.setRunning(idOf(c.req.param('agentId')), true)));
  });

  routes.post('/api/agents/:agentId/stop', async (c) => {
    agents.assertAllowed();
    return c.json(success(await agents.setRunning(idOf(c.req.param('agentId')), false)));
  });

  // 204 as elizaOS answers (its client reads `{ success: true }` from it).
  routes.delete('/api/agents/:agentId', async (c) => {
    agents.assertAllowed();
    await agents.delete(idOf(c.req.param('agentId')));
    return c.body(null, 204);
  });

  return routes;
}
