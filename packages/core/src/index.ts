/**
 * @module @parley/core
 * Wire types shared by every Parley package: socket opcodes and typed event maps, zod schemas of every payload
 * that crosses a boundary, and the one error base.
 */
export * from './constants';
export * from './socket/message-type';
export * from './socket/events';
export * from './socket/event-schemas';
export * from './schemas/common';
export * from './schemas/tool-calls';
export * from './schemas/approvals';
export * from './schemas/agent-message';
export * from './schemas/channel-message';
export * from './schemas/channels';
export * from './schemas/stream-events';
export * from './schemas/socket-payloads';
export * from './schemas/agent-post';
export * from './ids/reserved-uuid';
export * from './ids/uuid';
export * from './json/is-record';
export * from './schemas/route';

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

export * from './schemas/api';
export * from './errors/codes';
export * from './errors/parley-error';
export * from './errors/validation';
export * from './schemas/webhooks';
export * from './schemas/audit';
export * from './schemas/receipts';
export * from './schemas/sign-in';
export * from './schemas/attachment-ref';
