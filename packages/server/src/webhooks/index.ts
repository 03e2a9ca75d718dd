import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DatabaseSchema } from '../storage/schema';
import { WebhookSender } from './send-webhook';
import { TargetPolicy } from './target-policy';
import { type WebhookObserver, WebhookDispatcher } from './webhook-dispatcher';
import { webhookRoutes } from './webhook-routes';
import { WebhookStore } from './webhook-store';
import { WEBHOOK_DEFAULTS } from './webhook-defaults';

export { WEBHOOK_DEFAULTS } from './webhook-defaults';
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
  /** Attempts at once, in all (default 16) and per subscription (default 4), per process. */
  maxInFlight?: number;
  perSubscription?: number;
  /** Subscriptions kept at once (default 100). */
  maxSubscriptions?: number;
}

/** Outbound webhooks, composed: the routes, the dispatcher and the failed-reply event. */
export interface Webhooks {
  readonly routes: ReturnType<typeof webhookRoutes>;
  readonly dispatcher: WebhookDispatcher;
  /** Records `reply.failed` for the subscriptions that want it (a failed reply stores no message). */
  replyFailed(event: {
    channelId: string;
    replyId: string;
    messageId: string | null;
    error: { code: string; message: string };
  }): Promise<void>;
  close(): Promise<void>;
}

/** Creates outbound webhooks on the server's database. */
export function createWebhooks(
  db: Kysely<DatabaseSchema>,
  options: WebhookOptions & {
    logger: Logger;
    sync?: () => Promise<void>;
    observer?: WebhookObserver;
  },
): Webhooks {
  const store = new WebhookStore(db, options.sync);
  const policy = new TargetPolicy(options.privateTargets ?? []);
  const timeoutMs = options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs;
  const maxInFlight = options.maxInFlight ?? WEBHOOK_DEFAULTS.maxInFlight;
  const sender = new WebhookSender(policy, { timeoutMs, connections: maxInFlight });
  const dispatcher = new WebhookDispatcher({
    store,
    sender,
    logger: options.logger.child({ component: 'webhooks' }),
    retryDelaysMs: options.retryDelaysMs ?? WEBHOOK_DEFAULTS.retryDelaysMs,
    timeoutMs,
    maxInFlight,
    perSubscription: options.perSubscription ?? WEBHOOK_DEFAULTS.perSubscription,
    pollMs: options.pollMs ?? WEBHOOK_DEFAULTS.pollMs,
    ...(options.observer ? { observer: options.observer } : {}),
  });
  return {
    routes: webhookRoutes(store, policy, {
      maxSubscriptions: options.maxSubscriptions ?? WEBHOOK_DEFAULTS.maxSubscriptions,
    }),
    dispatcher,
    replyFailed: ({ channelId, ...data }) =>
      store.addReplyFailed(channelId, { channelId, ...data }),
    async close() {
      await dispatcher.stop();
      await sender.close();
    },
  };
}
