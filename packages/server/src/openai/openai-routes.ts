import { Hono } from 'hono';
import type { AgentProfile } from '../agents/agent-profile';
import type { AppEnv } from '../http/app-env';
import { readJsonBody } from '../http/read-body';
import { chatCompletions } from './chat-completions';
import { type OpenAIFaceContext, findModel } from './openai-conversation';
import { chatCompletionRequestSchema, responsesRequestSchema } from './openai-schemas';
import { createResponse } from './responses';

/** A model as `/v1/models` lists it: an agent, by id, with its name. */
function modelOf(agent: AgentProfile, created: number) {
  return {
    id: agent.agentId,
    object: 'model' as const,
    created,
    owned_by: 'parley',
    name: agent.character.name,
  };
}

/**
 * The OpenAI-compatible face of the agents: `GET /v1/models`, `GET /v1/models/{id}`, `POST
 * /v1/chat/completions` and `POST /v1/responses`. Each answer is a consumer of the one reply
 * (`MessagingService.converse`), as the channel routes are; the guards, the error shape and the budget are set
 * in `http/create-app.ts`.
 */
export function openaiRoutes(context: OpenAIFaceContext): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const created = Math.floor(Date.now() / 1000);

  routes.get('/v1/models', (c) =>
    c.json({
      object: 'list',
      data: context.agents
        .list()
        .filter((agent) => !context.agents.isStopped(agent.agentId))
        .map((agent) => modelOf(agent, created)),
    }),
  );

  routes.get('/v1/models/:model', (c) =>
    c.json(modelOf(findModel(context.agents, c.req.param('model')), created)),
  );

  routes.post('/v1/chat/completions', async (c) => {
    const body = await readJsonBody(c, chatCompletionRequestSchema, 'request');
    return chatCompletions(c, context, body);
  });

  routes.post('/v1/responses', async (c) => {
    const body = await readJsonBody(c, responsesRequestSchema, 'request');
    return createResponse(c, context, body);
  });

  return routes;
}
