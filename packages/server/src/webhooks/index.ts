import type { Tracer } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type ReplyPartHandlers, type ToolCallRecord, handlePart } from '../reply/parts/reply-part';
import type { ReplyConsumer } from '../reply/parts/reply-stream';
import { redactText } from '../redaction/redact';
import type { DatabaseSchema } from '../storage/schema';
import { WebhookSender } from './send-webhook';
import { TargetPolicy } from './target-policy';
import { type WebhookObserver, WebhookDispatcher } from './webhook-dispatcher';
import { webhookRoutes } from './webhook-routes';
import { WebhookStore } from './webhook-store';
import { DEFAULTS } from '../defaults';

export { TargetPolicy, TargetRefusedError } from './target-policy';
export type { WebhookObserver } from './webhook-dispatcher';

/** Options of outbound webhooks (`createServer`'s `webhooks`). */
export interface WebhookOptions {
  /** Waits before each retry (`WEBHOOK_RETRY_DELAYS`; default 5s, 5m, 30m, 2h, 5h, 10h). */
  retryDelaysMs?: readonly number[];
  /** Hosts, addresses or CIDR ranges that may be delivered to although private (`WEBHOOK_PRIVATE_TARGETS`). */
  privateTargets?: readonly string[];
  /** Deadline of one attempt (`WEBHOOK_TIMEOUT_MS`; default 10000 ms). */
  timeoutMs?: number;
  /** How often due deliveries are looked for (default 250 ms). */
  pollMs?: number;
  /**
   * Attempts at once, in all (default 16) and per subscription (default 4), per process. An attempt whose
   * receiver has kept it waiting `slowAfterMs` (default 1000 ms) no longer counts toward `maxInFlight`, only
   * toward its subscription's bound, so slow receivers never hold up the others.
   */
  maxInFlight?: number;
  perSubscription?: number;
  slowAfterMs?: number;
  /** Subscriptions kept at once (default 100). */
  maxSubscriptions?: number;
}

/** Outbound webhooks, composed: the routes, the dispatcher and the failed-reply event. */
export interface Webhooks {
  readonly routes: ReturnType<typeof webhookRoutes>;
  readonly dispatcher: WebhookDispatcher;
  /**
   * The reply consumer that records `reply.failed` for the subscriptions that want it (a failed reply stores no
   * message, so no trigger sees it), with the tool calls the reply made before it failed.
   */
  readonly failedReplies: ReplyConsumer;
  close(): Promise<void>;
}

/** Creates outbound webhooks on the server's database. */
export function createWebhooks(
  db: Kysely<DatabaseSchema>,
  options: WebhookOptions & {
    logger: Logger;
    sync?: () => Promise<void>;
    observer?: WebhookObserver;
    /** Where each attempt's CLIENT span goes (and its `traceparent` is sent); none: no spans. */
    tracer?: Tracer;
    /** The receipt id of a stored reply, added to `reply.completed` as `data.receiptId` (receipts on only). */
    receiptIdOf?: (messageId: string) => string | undefined;
  },
): Webhooks {
  const store = new WebhookStore(db, options.sync);
  const logger = options.logger.child({ component: 'webhooks' });
  const policy = new TargetPolicy(options.privateTargets ?? []);
  const timeoutMs = options.timeoutMs ?? DEFAULTS.webhooks.timeoutMs;
  const maxInFlight = options.maxInFlight ?? DEFAULTS.webhooks.maxInFlight;
  const sender = new WebhookSender(policy, {
    timeoutMs,
    tracer: options.tracer,
    ...(options.receiptIdOf && { receiptIdOf: options.receiptIdOf }),
  });
  const dispatcher = new WebhookDispatcher({
    store,
    sender,
    logger,
    retryDelaysMs: options.retryDelaysMs ?? DEFAULTS.webhooks.retryDelaysMs,
    timeoutMs,
    maxInFlight,
    perSubscription: options.perSubscription ?? DEFAULTS.webhooks.perSubscription,
    slowAfterMs: options.slowAfterMs ?? DEFAULTS.webhooks.slowAfterMs,
    pollMs: options.pollMs ?? DEFAULTS.webhooks.pollMs,
    ...(options.observer ? { observer: options.observer } : {}),
  });
  return {
    routes: webhookRoutes(store, policy, {
      maxSubscriptions: options.maxSubscriptions ?? DEFAULTS.webhooks.maxSubscriptions,
    }),
    dispatcher,
    failedReplies: (reply) => {
      // The calls made before the failure, with their outcomes: their actions ran although nothing is stored.
      const toolCalls: ToolCallRecord[] = [];
      const record = (type: 'reply.failed' | 'reply.awaiting_approval', event: object) =>
        store.addReplyEvent(type, reply.channelId, event).catch((error: unknown) => {
          logger.warn(
            {
              replyId: reply.replyId,
              error: error instanceof Error ? error.message : String(error),
            },
            `${type} not recorded for webhooks`,
          );
        });
      const handlers = {
        'reply-start': () => undefined,
        'text-delta': () => undefined,
        'tool-call': ({ toolCallId, toolName, input }) => {
          toolCalls.push({ toolCallId, toolName, input });
        },
        'tool-result': ({ toolCallId, output, error }) => {
          const call = toolCalls.find((each) => each.toolCallId === toolCallId);
          if (call) Object.assign(call, error === undefined ? { output } : { error });
        },
        'approval-request': () => undefined,
        'reply-end': () => undefined,
        'reply-pause': ({ text, toolCalls: calls, requests }) => {
          const event = {
            channelId: reply.channelId,
            replyId: reply.replyId,
            messageId: reply.inReplyTo,
            text,
            toolCalls: calls,
            requests,
          };
          void record('reply.awaiting_approval', event);
        },
        error: (part) => {
          // Error texts leave the server here: redacted as every error is (a tool's or a dependency's words).
          const event = {
            channelId: reply.channelId,
            replyId: reply.replyId,
            messageId: reply.inReplyTo,
            error: { code: part.code, message: redactText(part.message) },
            toolCalls: toolCalls.map((call) =>
              call.error === undefined ? call : { ...call, error: redactText(call.error) },
            ),
          };
          void record('reply.failed', event);
        },
      } satisfies ReplyPartHandlers;
      reply.subscribe((part) => handlePart(handlers, part));
    },
    async close() {
      await dispatcher.stop();
      await sender.close();
    },
  };
}
