import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import type { TeeService } from './tee-service';

/**
 * `GET /api/tee/status` and `GET /api/tee/agents[?nonce=]`. Bodies are SPEC.md's, not wrapped in the envelope;
 * errors are ParleyErrors for the app's one error handler. Answers are never cached: the status is live and a
 * list quote may be bound to a nonce.
 */
export function teeRoutes(service: TeeService): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use('/api/tee/*', async (c, next) => {
    await next();
    c.header('cache-control', 'no-store');
  });
  routes.get('/api/tee/status', async (c) => c.json(await service.status()));
  routes.get('/api/tee/agents', async (c) =>
    c.json(await service.listAgents(c.req.query('nonce'))),
  );
  return routes;
}
