import { randomUUID } from 'node:crypto';
import {
  DEFAULT_SERVER_ID,
  ParleyError,
  agentPostSchema,
  isStorableDate,
  parseOrThrow,
  reservedUuid,
} from '@parley/core';
import type { AgentScheduleOptions, ScheduledMessageInfo } from '@parley/plugin-sdk';
import { ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { inActiveSpan } from '../tracing/in-span';
import type { AgentRegistry } from '../agents/agent-registry';
import type { AgentProfile } from '../agents/agent-profile';
import type { MessagingService } from '../messaging/messaging-service';
import { PollLoop } from './poll-loop';
import type { ScheduledMessageRecord, ScheduledMessageStore } from './scheduled-message-store';
import { DEFAULTS } from '../defaults';

/** Options of the {@link ScheduledMessageDispatcher}. */
export interface DispatcherOptions {
  store: ScheduledMessageStore;
  messaging: MessagingService;
  agents: AgentRegistry;
  logger: Logger;
  /** How often due messages are looked for (default 250 ms, so a message posts within a second). */
  pollIntervalMs?: number;
  /** How long a claim lasts before another process may take the message over (default 30 s). */
  leaseMs?: number;
  /** Attempts before a message is marked failed (default 5). */
  maxAttempts?: number;
  /** The clock (tests move it by hand). */
  now?: () => Date;
  /** Where each send's span goes (`parley.scheduled.send`, a trace of its own); none: no spans. */
  tracer?: Tracer;
}

const CLAIM_BATCH = 50;

/** What a scheduled message carries besides its time, checked as an immediate post is. */
const scheduledPostSchema = agentPostSchema.pick({ channelId: true, text: true, metadata: true });

/**
 * Posts scheduled messages when they are due: once each, across restarts and across processes sharing one
 * PostgreSQL. "Once" rests on the messages table itself: a scheduled message is posted with its own id, so a
 * second post (after a crash between posting and marking sent) is a conflict, not a duplicate.
 */
export class ScheduledMessageDispatcher {
  readonly #options: DispatcherOptions & {
    pollIntervalMs: number;
    leaseMs: number;
    maxAttempts: number;
    now: () => Date;
  };
  readonly #worker = randomUUID();
  readonly #loop: PollLoop;

  constructor(options: DispatcherOptions) {
    // `??` rather than a spread of defaults: an option passed as undefined must not erase its default.
    this.#options = {
      ...options,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULTS.internals.schedulePollMs,
      leaseMs: options.leaseMs ?? DEFAULTS.internals.scheduleLeaseMs,
      maxAttempts: options.maxAttempts ?? DEFAULTS.internals.scheduleMaxAttempts,
      now: options.now ?? (() => new Date()),
    };
    this.#loop = new PollLoop({
      poll: () => this.dispatchDue(),
      intervalMs: this.#options.pollIntervalMs,
      onError: (error) =>
        this.#options.logger.error({ err: error }, 'scheduled message poll failed'),
    });
  }

  /** Validates and stores a message for `agent` to post at `sendAt`. */
  async schedule(agent: AgentProfile, input: AgentScheduleOptions): Promise<ScheduledMessageInfo> {
    const { channelId, text, metadata } = parseOrThrow(
      scheduledPostSchema,
      { channelId: input.channelId, text: input.text, metadata: input.metadata },
      'message',
    );
    const sendAt = input.sendAt;
    if (!(sendAt instanceof Date) || !isStorableDate(sendAt)) {
      throw new ParleyError('BAD_REQUEST', 'sendAt must be a valid date in the years 1 to 9999');
    }
    if (sendAt.getTime() <= this.#options.now().getTime()) {
      throw new ParleyError('BAD_REQUEST', 'sendAt must be in the future');
    }
    const id = reservedUuid();
    await this.#options.store.schedule({
      id,
      agentId: agent.agentId,
      channelId,
      serverId: DEFAULT_SERVER_ID,
      content: text,
      metadata: metadata ?? {},
      sendAt,
    });
    return { id, channelId, sendAt: sendAt.toISOString() };
  }

  /** Starts polling for due messages. */
  start(): void {
    this.#loop.start();
  }

  /** Stops polling and waits for a dispatch in progress. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Posts every message due now; resolves with how many were posted. */
  async dispatchDue(): Promise<number> {
    const { store, now, leaseMs } = this.#options;
    const due = await store.claimDue(now(), this.#worker, leaseMs, CLAIM_BATCH);
    let posted = 0;
    for (const record of due) if (await this.#traced(record)) posted += 1;
    return posted;
  }

  /** {@link #dispatch} in a span of its own: the post, its statements and its delivery to the room. */
  #traced(record: ScheduledMessageRecord): Promise<boolean> {
    const attributes = {
      'parley.scheduled.id': record.id,
      'gen_ai.agent.id': record.agentId,
      'gen_ai.conversation.id': record.channelId,
    };
    return inActiveSpan(
      this.#options.tracer,
      { name: 'parley.scheduled.send', attributes, parent: ROOT_CONTEXT },
      async (span) => {
        const posted = await this.#dispatch(record);
        span?.setAttribute('parley.scheduled.posted', posted);
        return posted;
      },
    );
  }

  async #dispatch(record: ScheduledMessageRecord): Promise<boolean> {
    const { store, messaging, agents, logger, maxAttempts, now } = this.#options;
    const agent = agents.find(record.agentId);
    if (!agent) {
      await store.markFailed(record.id, `agent ${record.agentId} is not loaded`);
      return false;
    }
    try {
      await messaging.postAgentMessage(
        agent,
        {
          channelId: record.channelId,
          serverId: record.serverId,
          text: record.content,
          metadata: { ...record.metadata, scheduledFor: record.sendAt.toISOString() },
        },
        { id: record.id, sourceType: 'scheduled' },
      );
    } catch (error) {
      // Posted by an earlier attempt that died before marking it sent.
      const alreadyPosted = ParleyError.isInstance(error) && error.code === 'CONFLICT';
      if (!alreadyPosted) {
        const giveUp = record.attempts >= maxAttempts;
        const retryAt = giveUp
          ? undefined
          : new Date(now().getTime() + 1000 * 2 ** record.attempts);
        logger.warn({ err: error, scheduledId: record.id, giveUp }, 'scheduled message failed');
        await store.markFailed(record.id, 'post failed', retryAt);
        return false;
      }
    }
    await store.markSent(record.id, record.id);
    logger.debug({ scheduledId: record.id }, 'scheduled message posted');
    return true;
  }
}
