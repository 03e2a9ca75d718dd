import { randomBytes } from 'node:crypto';
import {
  ParleyError,
  parseOrThrow,
  uuidSchema,
  webhookDeliveriesQuerySchema,
  webhookSubscriptionRequestSchema,
} from '@parley/core';
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import { readJsonBody } from '../http/read-body';
import { TargetRefusedError, type TargetPolicy } from './target-policy';
import type { WebhookStore } from './webhook-store';

/** Options of {@link webhookRoutes}. */
export interface WebhookRoutesOptions {
  /** Subscriptions kept at once (a new one beyond it is a 409). */
  maxSubscriptions: number;
}

/**
 * `POST /api/webhooks`, `GET /api/webhooks`, `GET|DELETE /api/webhooks/{id}`,
 * `GET /api/webhooks/{id}/deliveries` and `POST /api/webhooks/{id}/deliveries/{deliveryId}/retry`. Behind the
 * server token like every built-in path under `/api`.
 */
export function webhookRoutes(
  store: WebhookStore,
  policy: TargetPolicy,
  options: WebhookRoutesOptions,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post('/api/webhooks', async (c) => {
    const body = await readJsonBody(c, webhookSubscriptionRequestSchema, 'subscription');
    const url = new URL(body.url);
    try {
      await policy.check(url);
    } catch (error) {
      const reason =
        error instanceof TargetRefusedError
          ? error.message
          : `${url.hostname} could not be resolved`;
      throw new ParleyError('BAD_REQUEST', `Invalid subscription: url ${reason}`);
    }
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    // The bound is held by the database, in the insert's own transaction, not by a count before it.
    const subscription = await store.create(
      {
        url: url.href,
        events: body.events,
        channelId: body.channelId ?? null,
        secret,
      },
      options.maxSubscriptions,
    );
    if (!subscription) {
      throw new ParleyError(
        'CONFLICT',
        `At most ${options.maxSubscriptions} webhook subscriptions; delete one first`,
      );
    }
    // The only answer that carries the secret.
    return c.json(success({ ...subscription, secret }), 201);
  });

  routes.get('/api/webhooks', async (c) => c.json(success(await store.list())));

  routes.get('/api/webhooks/:id', async (c) => {
    const subscription = await store.get(subscriptionId(c.req.param('id')));
    if (!subscription) throw notFound();
    return c.json(success(subscription));
  });

  routes.delete('/api/webhooks/:id', async (c) => {
    const id = subscriptionId(c.req.param('id'));
    if (!(await store.delete(id))) throw notFound();
    return c.json(success({ id, deleted: true as const }));
  });

  routes.get('/api/webhooks/:id/deliveries', async (c) => {
    const id = subscriptionId(c.req.param('id'));
    const { limit } = parseOrThrow(webhookDeliveriesQuerySchema, c.req.query(), 'query');
    if (!(await store.get(id))) throw notFound();
    return c.json(success(await store.deliveries(id, limit)));
  });

  routes.post('/api/webhooks/:id/deliveries/:deliveryId/retry', async (c) => {
    const id = subscriptionId(c.req.param('id'));
    const deliveryId = parseOrThrow(uuidSchema, c.req.param('deliveryId'), 'deliveryId');
    if (await store.retry(id, deliveryId)) {
      return c.json(success({ id: deliveryId, status: 'pending' as const }), 202);
    }
    if (await store.hasDelivery(id, deliveryId)) {
      throw new ParleyError('CONFLICT', 'This delivery was delivered already');
    }
    throw new ParleyError('NOT_FOUND', 'No such delivery of this webhook subscription');
  });

  return routes;
}

function subscriptionId(value: string): string {
  return parseOrThrow(uuidSchema, value, 'id');
}

function notFound(): ParleyError {
  return new ParleyError('NOT_FOUND', 'No such webhook subscription');
}
