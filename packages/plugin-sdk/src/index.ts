/**
 * @module @parley/plugin-sdk
 * What plugin authors install: the plugin and route contract, typed helpers to declare them, and the agent
 * runtime as a plugin sees it.
 */
export { definePlugin, defineRoute } from './plugin/plugin';
export type { Plugin, PluginTest, PluginTestSuite } from './plugin/plugin';
export type {
  HeaderValue,
  HttpRoute,
  HttpRouteHandler,
  HttpRouteRequest,
  HttpRouteResponse,
  Route,
  RouteHandler,
  RouteRequest,
  RouteResponse,
  SendFileOptions,
  UploadedFile,
} from './plugin/route';
export type {
  AgentPostOptions,
  AgentRuntime,
  AgentScheduleOptions,
  Character,
  ControlOptions,
  PluginEventHandler,
  PluginLogger,
  PluginService,
  PluginServiceClass,
  ScheduledMessageInfo,
} from './plugin/runtime';
export { safeEqual } from './webhooks/safe-equal';
export type { RouteType } from '@parley/core';
export {
  ActionStreamFilter,
  DEFAULT_MAX_FIELD_LENGTH,
  MAX_LEADING_WHITESPACE,
  PassthroughExtractor,
  ResponseStreamExtractor,
  XmlTagExtractor,
} from './extractors/index';
export type {
  ResponseStreamExtractorOptions,
  StreamContentType,
  StreamExtractor,
} from './extractors/index';
export { checkApiKey } from './webhooks/check-api-key';
export type { HeaderSource } from './webhooks/check-api-key';
export type { WebhookBody } from './webhooks/hmac-sha256';
export { signWebhook } from './webhooks/sign-webhook';
export type { SignWebhookOptions, SignedWebhookHeaders } from './webhooks/sign-webhook';
export { verifyGithubSignature } from './webhooks/verify-github-signature';
export type { VerifyGithubSignatureOptions } from './webhooks/verify-github-signature';
export { verifyWebhookSignature } from './webhooks/verify-webhook-signature';
export type {
  VerifyWebhookSignatureOptions,
  WebhookVerification,
  WebhookVerificationFailure,
} from './webhooks/verify-webhook-signature';
export {
  GITHUB_EVENT_HEADER,
  GITHUB_SIGNATURE_HEADER,
  PARLEY_SIGNATURE_HEADER,
  PARLEY_TIMESTAMP_HEADER,
} from './webhooks/webhook-headers';
export { ParleyClientError, submitAgentMessage } from './messaging/index';
export type { SubmitAgentMessageOptions } from './messaging/index';
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
export { uuidV5 } from './helpers/uuid-v5';
