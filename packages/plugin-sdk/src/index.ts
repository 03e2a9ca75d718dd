/**
 * @module @parley/plugin-sdk
 * What plugin authors install: the plugin and route contract, typed helpers to declare them, and the agent
 * runtime as a plugin sees it.
 */
export * from './plugin/action';
export * from './plugin/plugin';
export * from './plugin/route';
export * from './plugin/runtime';
export * from './webhooks/safe-equal';
export type { RouteType } from '@parley/core';
export * from './extractors/index';
export * from './webhooks/check-api-key';
export type { WebhookBody } from './webhooks/hmac-sha256';
export * from './webhooks/sign-webhook';
export * from './webhooks/verify-github-signature';
export * from './webhooks/verify-webhook-signature';
export * from './webhooks/webhook-headers';
export * from './messaging/index';
// The small helpers most plugins would write again: checks of bodies and ids, text a database can store, the
// error codes the runtime throws. The checks are @parley/core's, the ones the server uses.
export {
  ERROR_CODES,
  errorCodeOf,
  findJsonProblem,
  isErrorCode,
  isRecord,
  isUuid,
  MAX_JSON_DEPTH,
  MAX_TEXT_LENGTH,
  toStorableText,
  unstorableTextReason,
  UUID_PATTERN,
} from '@parley/core';
export type { ErrorCode, JsonProblem } from '@parley/core';
export * from './helpers/uuid-v5';
