import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import type * as A2AHandlerModule from './a2a-handler';
import { A2A_PATH, AGENT_CARD_PATH, type A2AFaceContext } from './a2a-paths';

export {
  A2A_PATH,
  A2A_SOURCE,
  AGENT_CARD_PATH,
  type A2AFaceContext,
  channelOfContext,
  isA2APath,
  isAgentCardPath,
} from './a2a-paths';

/**
 * The A2A face of the agents (A2A 1.0, through the official SDK's request handler and JSON-RPC transport
 * handler, mounted on hono): each agent's card, and its JSON-RPC endpoint (`SendMessage`, `SendStreamingMessage`,
 * `GetTask`, `CancelTask`, …). The guards (auth, rate, body limit) are set in `http/create-app.ts`.
 *
 * The A2A SDK is imported at the first request to the face (`a2a-handler.ts`), not at start-up: a server nobody
 * asks over A2A never loads it (see docs/decisions.md).
 */
export function a2aRoutes(context: A2AFaceContext): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  let loading: Promise<A2AHandlerModule.A2AHandler> | undefined;
  const handler = () => {
    loading ??= import('./a2a-handler').then(
      (module) => module.createA2AHandler(context),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  routes.get(AGENT_CARD_PATH, async (c) => (await handler()).card(c, undefined));
  routes.get(`${A2A_PATH}/:agentId${AGENT_CARD_PATH}`, async (c) =>
    (await handler()).card(c, c.req.param('agentId')),
  );
  routes.post(`${A2A_PATH}/:agentId`, async (c) => (await handler()).call(c));
  return routes;
}
