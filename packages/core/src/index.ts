/**
 * @module @parley/core
 * Wire types shared by every Parley package: socket opcodes and typed event maps, zod schemas of every payload
 * that crosses a boundary, and the one error base.
 */
export {
  API_KEY_HEADER,
  DEFAULT_SERVER_ID,
  RESERVED_PATHS,
  RESERVED_PATH_PREFIXES,
} from './constants';
export { SOCKET_MESSAGE_TYPE } from './socket/message-type';
export type {
  ClientToServerEvents,
  ServerToClientEventName,
  ServerToClientEvents,
} from './socket/events';

export {
  MAX_JSON_DEPTH,
  MAX_JSON_LENGTH,
  MAX_TEXT_LENGTH,
  attachmentSchema,
  entityIdSchema,
  findJsonProblem,
  instantSchema,
  isStorableDate,
  labelSchema,
  messageTextSchema,
  metadataSchema,
  refineStorableJson,
  storableString,
  toStorableText,
  unstorableTextReason,
  uuidSchema,
} from './schemas/common';
export type { Attachment, JsonProblem } from './schemas/common';

export {
  agentMessageMetadataSchema,
  agentMessageSchema,
  rawMessageSchema,
  storedMessageSchema,
} from './schemas/agent-message';
export type {
  AgentMessage,
  AgentMessageInput,
  RawMessage,
  StoredMessage,
} from './schemas/agent-message';

export {
  agentResponseSchema,
  channelHistoryQuerySchema,
  cancelledReplySchema,
  channelMessageRequestSchema,
  deliveryModeSchema,
  ifBusySchema,
  syncModeResponseSchema,
  userMessageSummarySchema,
  websocketModeResponseSchema,
} from './schemas/channel-message';
export type {
  AgentResponse,
  ChannelHistoryQuery,
  ChannelMessageRequest,
  ChannelMessageRequestInput,
  DeliveryMode,
  IfBusy,
  SyncModeResponse,
  WebsocketModeResponse,
} from './schemas/channel-message';

export {
  chunkEventSchema,
  doneEventSchema,
  errorEventSchema,
  gapEventSchema,
  streamEventSchemas,
  userMessageEventSchema,
} from './schemas/stream-events';
export type { StreamEvent, StreamEventName } from './schemas/stream-events';

export {
  connectionEstablishedSchema,
  controlMessageSchema,
  messageBroadcastSchema,
  messageCompleteSchema,
  messageErrorSchema,
  messageStreamChunkSchema,
  presenceEventSchema,
  roomJoiningPayloadSchema,
  sendMessagePayloadSchema,
  socketAckSchema,
  socketEnvelopeSchema,
  socketErrorSchema,
  typingPayloadSchema,
  userTypingSchema,
} from './schemas/socket-payloads';
export { cancelReplyPayloadSchema } from './schemas/socket-payloads';
export type {
  CancelReplyPayload,
  ControlMessage,
  MessageBroadcast,
  MessageComplete,
  MessageError,
  MessageStreamChunk,
  PresenceEvent,
  RoomJoiningPayload,
  SendMessagePayload,
  SendMessagePayloadInput,
  SocketAck,
  SocketEnvelope,
  TypingPayload,
  UserTyping,
} from './schemas/socket-payloads';

export { agentPostSchema } from './schemas/agent-post';
export type { AgentPost } from './schemas/agent-post';
export { isReservedUuid, reservedUuid } from './ids/reserved-uuid';
export { isUuid, UUID_PATTERN, uuidFromBytes } from './ids/uuid';
export { isRecord } from './json/is-record';

export { routeDefinitionSchema, routeTypeSchema } from './schemas/route';
export type { RouteDefinitionShape, RouteType } from './schemas/route';

export {
  deriveKeyAttestationDataSchema,
  remoteAttestationMessageSchema,
  remoteAttestationQuoteSchema,
  teeAgentSchema,
  teeAgentsResponseSchema,
  teeModeSchema,
  teeStatusResponseSchema,
} from './schemas/tee';
export type {
  DeriveKeyAttestationData,
  RemoteAttestationMessage,
  RemoteAttestationQuote,
  TeeAgent,
  TeeAgentsResponse,
  TeeMode,
  TeeStatusResponse,
} from './schemas/tee';

export {
  agentSummarySchema,
  apiErrorBodySchema,
  apiSuccessSchema,
  healthSchema,
} from './schemas/api';
export type { AgentSummary, ApiErrorBody, ApiSuccess } from './schemas/api';

export { ERROR_CODES, errorCodeOf, httpStatusOf, isErrorCode } from './errors/codes';
export type { ErrorCode } from './errors/codes';
export { ParleyError } from './errors/parley-error';
export type { ParleyErrorOptions } from './errors/parley-error';
export { parseOrThrow, toValidationIssues } from './errors/validation';
export type { ValidationIssue } from './errors/validation';

export {
  WEBHOOK_EVENT_TYPES,
  webhookDeliveriesQuerySchema,
  webhookSubscriptionRequestSchema,
  webhookSubscriptionSchema,
} from './schemas/webhooks';
export type {
  WebhookEventType,
  WebhookSubscriptionInfo,
  WebhookSubscriptionRequest,
} from './schemas/webhooks';
