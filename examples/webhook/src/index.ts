/**
 * @module @parley/example-webhook
 * Example Parley plugin with two reference routes of the spec: `POST /webhook` and `POST /secure/webhook`.
 */
export { webhookPlugin, webhookPlugin as default } from './webhook-plugin';
export { webhookPluginTests } from './webhook-plugin-tests';
export { parseWebhookEvent, webhookRoute } from './webhook-route';
export type { WebhookEvent } from './webhook-route';
export { secureWebhookRoute } from './secure-webhook-route';
