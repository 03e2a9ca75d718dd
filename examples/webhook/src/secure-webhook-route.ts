import { checkApiKey, defineRoute } from '@parley/plugin-sdk';

/**
 * `POST /secure/webhook`: answers `401 { success: false, error }` unless the `x-api-key` header equals the
 * agent's `WEBHOOK_API_KEY` (compared in constant time); otherwise processes the body (any) and answers
 * `200 { success: true, message }`. With no `WEBHOOK_API_KEY` configured every request is refused: a secured
 * route must not open up because a setting is missing.
 *
 * Public as far as the server's own `SERVER_AUTH_TOKEN` goes: it checks its own key in the same header.
 */
export const secureWebhookRoute = defineRoute({
  type: 'POST',
  path: '/secure/webhook',
  name: 'secure-webhook',
  public: true,
  handler(request, response, runtime) {
    if (!checkApiKey(request.headers, runtime.getSetting('WEBHOOK_API_KEY'))) {
      response.status(401).json({ success: false, error: 'Missing or invalid x-api-key header' });
      return;
    }
    runtime.logger.info('secure webhook received');
    response.json({ success: true, message: 'Secure webhook processed' });
  },
});
