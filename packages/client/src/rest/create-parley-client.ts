import {
  type AgentMessageInput,
  type AgentSummary,
  type ApprovalDecided,
  type ApprovalDecisionInput,
  type ChannelMessageRequestInput,
  type StoredMessage,
  type SyncModeResponse,
  type TeeAgentsResponse,
  type TeeStatusResponse,
  type WebsocketModeResponse,
  agentSummarySchema,
  apiSuccessSchema,
  approvalDecidedSchema,
  cancelledReplySchema,
  healthSchema,
  storedMessageSchema,
  syncModeResponseSchema,
  receiptBundleSchema,
  receiptPageSchema,
  type ReceiptBundle,
  type ReceiptPage,
  teeAgentsResponseSchema,
  teeStatusResponseSchema,
  websocketModeResponseSchema,
} from '@parley/core';
import { z } from 'zod';
import {
  type ChannelStreamEvent,
  type StreamOptions,
  streamChannelMessage,
} from '../sse/stream-channel-message';
import { type ChannelMethods, createChannelMethods } from './channel-methods';
import type { Credential, HttpConfig } from './http-config';
import { requestJson } from './request-json';

/** Options of {@link createParleyClient}. */
export interface ParleyClientOptions {
  /** The server's base address, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /**
   * Sent as `x-api-key`: the server's `SERVER_AUTH_TOKEN`, or a person's access token where people sign in. A
   * function is asked before each request (a token renewed meanwhile is the one sent).
   */
  apiKey?: Credential;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof fetch;
  /** Per-request timeout in milliseconds (default 30000). For streams it bounds the wait for the headers. */
  timeout?: number;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call; it then rejects with code `ABORTED`. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call (ms). A `sync` call waits for the whole reply. */
  timeout?: number;
}

/** A channel message as sent by {@link ParleyClient.sendMessage}; `mode` picks how the reply comes back. */
export type ChannelMessage = Omit<ChannelMessageRequestInput, 'mode'>;

/** Query of {@link ParleyClient.channelMessages}. */
export interface ChannelMessagesQuery extends CallOptions {
  /** How many messages (1 to 200, default 50). */
  limit?: number;
  /** Only messages created before this instant (paging backwards). */
  before?: Date | string;
}

/** `GET /api/agents`'s data: `{ agents }`, or a bare list from a server before issue 32. */
const agentListSchema = z.union([
  z.array(agentSummarySchema),
  z.object({ agents: z.array(agentSummarySchema) }),
]);

/**
 * `GET …/channels/{channelId}/messages`'s data: `{ messages, hasMore }` since issue 32 (elizaOS's envelope), a
 * bare list from older servers.
 */
const historyPageSchema = z.union([
  z.array(storedMessageSchema),
  z.object({ messages: z.array(storedMessageSchema) }),
]);

/** The typed Parley client: messaging, replies, TEE, and the channels API ({@link ChannelMethods}). */
export interface ParleyClient extends ChannelMethods {
  /** `GET /api/server/health`. */
  health(options?: CallOptions): Promise<{ status: 'ok' }>;
  /** `GET /api/agents`: each agent's id and name, the default agent first. */
  listAgents(options?: CallOptions): Promise<AgentSummary[]>;
  /**
   * `POST /api/messaging/submit`: stores a message (usually an agent's) and broadcasts it to the channel's
   * room. Resolves with the stored message. No agent is asked to reply.
   */
  submit(message: AgentMessageInput, options?: CallOptions): Promise<StoredMessage>;
  /**
   * `POST /api/messaging/channels/{channelId}/messages` in mode `websocket` (the default): resolves once the
   * message is stored; the agent's reply arrives on the socket as `messageBroadcast`.
   */
  sendMessage(
    channelId: string,
    message: ChannelMessage & { mode?: 'websocket' },
    options?: CallOptions,
  ): Promise<WebsocketModeResponse>;
  /**
   * Mode `sync`: resolves with the user message and the agent's full reply (504 `TIMEOUT` when too slow). A
   * reply that paused for approval resolves too (HTTP 202) with `awaitingApproval`, the calls waiting, and
   * `agentResponse` holding what the reply has so far: decide each with {@link ParleyClient.decideApproval}.
   */
  sendMessage(
    channelId: string,
    message: ChannelMessage & { mode: 'sync' },
    options?: CallOptions,
  ): Promise<SyncModeResponse>;
  /**
   * Mode `stream`: an async iterable of `user_message`, `chunk`… and `done` events; see
   * {@link streamChannelMessage} for errors, aborts and resumption.
   */
  sendMessage(
    channelId: string,
    message: ChannelMessage & { mode: 'stream' },
    options?: StreamOptions,
  ): AsyncIterable<ChannelStreamEvent>;
  /** `GET /api/messaging/channels/{channelId}/messages`: stored messages, newest first. */
  channelMessages(channelId: string, query?: ChannelMessagesQuery): Promise<StoredMessage[]>;
  /**
   * `POST /api/messaging/replies/{replyId}/cancel`: stops a running reply (on whichever server process runs
   * it); its streams end with an `error` of code `CANCELLED`. Rejects with `NOT_FOUND` (404) for an unknown
   * reply, `CONFLICT` (409) for one that already ended.
   */
  cancelReply(
    replyId: string,
    options?: CallOptions,
  ): Promise<{ replyId: string; status: 'cancelled' }>;
  /**
   * `POST /api/messaging/replies/{replyId}/approvals`: approves or denies one call of a reply paused for approval
   * (an `approval_request` stream event, the socket's `approvalRequest`, a `sync` answer's `awaitingApproval`).
   * A denial's `reason` reaches the model with the refusal. The reply goes on, under the same id, once every
   * request of its step is decided. Rejects with `NOT_FOUND` (404) for an unknown reply or call, `CONFLICT`
   * (409) when the call was already decided or its request expired, `BAD_REQUEST` (400) for a bad decision.
   */
  decideApproval(
    replyId: string,
    decision: ApprovalDecisionInput,
    options?: CallOptions,
  ): Promise<ApprovalDecided>;
  /** `GET /api/tee/status`. */
  teeStatus(options?: CallOptions): Promise<TeeStatusResponse>;
  /** `GET /api/tee/agents`; a `nonce` is bound into the list's attestation (replay protection). */
  teeAgents(nonce?: string, options?: CallOptions): Promise<TeeAgentsResponse>;
  /**
   * `GET /api/messaging/messages/{id}/receipt`: a reply's signed receipt with the agent's registration and the
   * TEE's event log; check it with `@parley/tee`'s `verifyReceipt`. `NOT_FOUND` (404) without one (yet).
   */
  messageReceipt(messageId: string, options?: CallOptions): Promise<ReceiptBundle>;
  /**
   * `GET /api/messaging/channels/{id}/receipts`: a page of the channel's receipts in chain order; pass
   * `nextCursor` as `after` for the next. Check them with `verifyReceiptChain`.
   */
  channelReceipts(
    channelId: string,
    query?: CallOptions & { after?: string; limit?: number },
  ): Promise<ReceiptPage>;
}

/** Builds the shared HTTP settings from the public options. */
export function toHttpConfig(options: ParleyClientOptions): HttpConfig {
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    // Bound lazily so that a fetch installed after the client was created (a test stub) is still used.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    timeout: options.timeout ?? 30_000,
  };
}

const channelPath = (channelId: string) =>
  `/api/messaging/channels/${encodeURIComponent(channelId)}/messages`;

/**
 * Creates a typed client for a Parley server. Every response is validated against core's schemas; every
 * failure is a {@link ParleyClientError}.
 *
 * @example
 * const parley = createParleyClient({ baseUrl: 'http://localhost:3000', apiKey: process.env.PARLEY_KEY });
 * const { agentResponse } = await parley.sendMessage(channelId, {
 *   text: 'Hello',
 *   entityId: userId,
 *   mode: 'sync',
 * });
 */
export function createParleyClient(options: ParleyClientOptions): ParleyClient {
  const config = toHttpConfig(options);
  const getData = <T extends z.ZodType>(
    path: string,
    schema: T,
    call: CallOptions & { query?: Record<string, string | number | undefined> } = {},
  ): Promise<z.output<T>> =>
    requestJson(config, { path, ...call }, apiSuccessSchema(schema)).then(
      // zod cannot name the output of a generic object schema; the envelope schema guarantees `data`.
      (body) => (body as { data: z.output<T> }).data,
    );

  function sendMessage(
    channelId: string,
    message: ChannelMessage & { mode: 'stream' },
    call?: StreamOptions,
  ): AsyncIterable<ChannelStreamEvent>;
  function sendMessage(
    channelId: string,
    message: ChannelMessage & { mode?: 'websocket' | 'sync' },
    call?: CallOptions,
  ): Promise<WebsocketModeResponse | SyncModeResponse>;
  function sendMessage(
    channelId: string,
    message: ChannelMessage & { mode?: 'websocket' | 'sync' | 'stream' },
    call: CallOptions & StreamOptions = {},
  ): AsyncIterable<ChannelStreamEvent> | Promise<WebsocketModeResponse | SyncModeResponse> {
    const { mode = 'websocket', ...rest } = message;
    if (mode === 'stream') return streamChannelMessage(config, channelId, rest, call);
    const schema = mode === 'sync' ? syncModeResponseSchema : websocketModeResponseSchema;
    const description = { method: 'POST' as const, path: channelPath(channelId), ...call };
    return requestJson(config, { ...description, body: { ...rest, mode } }, schema);
  }

  return {
    health: (call) => getData('/api/server/health', healthSchema, call),
    // `{ agents }` since issue 32 (elizaOS's shape); a bare list from older servers.
    listAgents: (call) =>
      getData('/api/agents', agentListSchema, call).then((data) =>
        Array.isArray(data) ? data : data.agents,
      ),
    submit: (message, call) =>
      requestJson(
        config,
        { method: 'POST', path: '/api/messaging/submit', body: message, ...call },
        apiSuccessSchema(storedMessageSchema),
      ).then((body) => body.data),
    sendMessage: sendMessage as ParleyClient['sendMessage'],
    channelMessages: (channelId, { limit, before, ...call } = {}) =>
      getData(channelPath(channelId), historyPageSchema, {
        ...call,
        query: { limit, before: before instanceof Date ? before.toISOString() : before },
      }).then((page) => (Array.isArray(page) ? page : page.messages)),
    cancelReply: (replyId, call) =>
      requestJson(
        config,
        {
          method: 'POST',
          path: `/api/messaging/replies/${encodeURIComponent(replyId)}/cancel`,
          ...call,
        },
        apiSuccessSchema(cancelledReplySchema),
      ).then((body) => body.data),
    decideApproval: (replyId, decision, call) =>
      requestJson(
        config,
        {
          method: 'POST',
          path: `/api/messaging/replies/${encodeURIComponent(replyId)}/approvals`,
          body: decision,
          ...call,
        },
        apiSuccessSchema(approvalDecidedSchema),
      ).then((body) => body.data),
    teeStatus: (call) =>
      requestJson(config, { path: '/api/tee/status', ...call }, teeStatusResponseSchema),
    ...createChannelMethods(config),
    messageReceipt: (messageId, call) =>
      getData(
        `/api/messaging/messages/${encodeURIComponent(messageId)}/receipt`,
        receiptBundleSchema,
        call,
      ),
    channelReceipts: (channelId, { after, limit, ...call } = {}) =>
      getData(
        `/api/messaging/channels/${encodeURIComponent(channelId)}/receipts`,
        receiptPageSchema,
        { ...call, query: { after, limit } },
      ),
    teeAgents: (nonce, call) =>
      requestJson(
        config,
        { path: '/api/tee/agents', query: { nonce }, ...call },
        teeAgentsResponseSchema,
      ),
  };
}
