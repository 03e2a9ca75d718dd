import { ParleyError, parseOrThrow, receiptPageQuerySchema, uuidSchema } from '@parley/core';
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import type { ReceiptService } from './receipt-service';

/**
 * `GET /api/messaging/messages/{id}/receipt` (a reply's receipt with the registration and event log that check
 * it offline) and `GET /api/messaging/channels/{id}/receipts?after=&limit=` (the channel's receipts in chain
 * order, keyset pages). Both behind the API key like the rest of `/api/messaging`. Receipts outlive the
 * channel: a deleted channel's chains stay readable, ending in their tombstones.
 */
export function receiptRoutes(receipts: ReceiptService): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const requireEnabled = () => {
    if (!receipts.enabled) {
      throw new ParleyError(
        'NOT_FOUND',
        'No receipts: this server runs without a TEE (TEE_MODE=OFF)',
      );
    }
  };

  routes.get('/api/messaging/messages/:messageId/receipt', async (c) => {
    const messageId = parseOrThrow(uuidSchema, c.req.param('messageId'), 'messageId');
    requireEnabled();
    c.header('cache-control', 'no-store');
    return c.json(success(await receipts.forMessage(messageId)));
  });

  routes.get('/api/messaging/channels/:channelId/receipts', async (c) => {
    const channelId = parseOrThrow(uuidSchema, c.req.param('channelId'), 'channelId');
    const { after, limit } = parseOrThrow(receiptPageQuerySchema, c.req.query(), 'query');
    requireEnabled();
    c.header('cache-control', 'no-store');
    return c.json(success(await receipts.page(channelId, after, limit)));
  });

  return routes;
}
