import { definePlugin } from '@parley/plugin-sdk';
import { secureWebhookRoute } from './secure-webhook-route';
import { webhookPluginTests } from './webhook-plugin-tests';
import { webhookRoute } from './webhook-route';

/**
 * The webhook example plugin: `POST /webhook` (open) and `POST /secure/webhook` (API key in `x-api-key`).
 * Setting: `WEBHOOK_API_KEY`.
 */
export const webhookPlugin = definePlugin({
  name: 'webhook',
  description: 'Receives generic webhooks, openly or secured with an API key.',
  routes: [webhookRoute, secureWebhookRoute],
  init(_config, runtime) {
    if (!runtime.getSetting('WEBHOOK_API_KEY')) {
      runtime.logger.warn('WEBHOOK_API_KEY is not set: POST /secure/webhook refuses every request');
    }
  },
  tests: webhookPluginTests,
});
