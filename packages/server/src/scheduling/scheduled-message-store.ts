import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from '../storage/schema';
import { assertStorable, storageCall } from '../storage/to-storage-error';

/** A scheduled message row, as the dispatcher sees it. */
export interface ScheduledMessageRecord {
  id: string;
  agentId: string;
  channelId: string;
  serverId: string;
  content: string;
  metadata: Record<string, unknown>;
  sendAt: Date;
  attempts: number;
}

/** What `schedule` stores. */
export type NewScheduledMessage = Omit<ScheduledMessageRecord, 'attempts'>;

/**
 * Durable scheduled messages. A due message is claimed by one process at a time with a lease
 * (`FOR UPDATE SKIP LOCKED`), so several processes on one PostgreSQL never claim the same row at once, and a
 * process that dies mid-dispatch releases its rows when the lease runs out.
 */
export class ScheduledMessageStore {
  /**
   * @param db the database.
   * @param sync makes a scheduled message durable before `schedule` resolves (see `Database.sync`).
   */
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly sync: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** Stores a message to post at `sendAt`. */
  async schedule(message: NewScheduledMessage): Promise<void> {
    assertStorable({
      texts: { text: message.content },
      json: { metadata: message.metadata },
      // A Date far outside the years 1-9999 reaches PostgreSQL as text it cannot read.
      dates: { sendAt: message.sendAt },
    });
    await storageCall('scheduled message', () =>
      this.db
        .insertInto('scheduled_messages')
        .values({
          id: message.id,
          agent_id: message.agentId,
          channel_id: message.channelId,
          server_id: message.serverId,
          content: message.content,
          metadata: JSON.stringify(message.metadata),
          send_at: message.sendAt,
          status: 'pending',
          claimed_by: null,
          claimed_until: null,
          message_id: null,
          last_error: null,
        })
        .execute(),
    );
    await this.sync();
  }

  /** Claims up to `limit` due messages for `worker` until `now + leaseMs`. */
  async claimDue(
    now: Date,
    worker: string,
    leaseMs: number,
    limit: number,
  ): Promise<ScheduledMessageRecord[]> {
    const until = new Date(now.getTime() + leaseMs);
    const rows = await this.db
      .updateTable('scheduled_messages')
      .set({ claimed_by: worker, claimed_until: until, attempts: sql`attempts + 1` })
      .where(
        'id',
        'in',
        this.db
          .selectFrom('scheduled_messages')
          .select('id')
          .where('status', '=', 'pending')
          .where('send_at', '<=', now)
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
          .orderBy('send_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning([
        'id',
        'agent_id',
        'channel_id',
        'server_id',
        'content',
        'metadata',
        'send_at',
        'attempts',
      ])
      .execute();
    return rows.map((row) => ({
      id: row.id,
      agentId: row.agent_id,
      channelId: row.channel_id,
      serverId: row.server_id,
      content: row.content,
      metadata: row.metadata,
      sendAt: new Date(row.send_at),
      attempts: row.attempts,
    }));
  }

  /** The earliest `send_at` of a pending message, if any. */
  async nextDue(): Promise<Date | undefined> {
    const row = await this.db
      .selectFrom('scheduled_messages')
      .select((eb) => eb.fn.min('send_at').as('next'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.next ? new Date(row.next) : undefined;
  }

  /** Marks a message posted. */
  async markSent(id: string, messageId: string): Promise<void> {
    await this.db
      .updateTable('scheduled_messages')
      .set({ status: 'sent', message_id: messageId, claimed_until: null, last_error: null })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Records a failed attempt: retried after `retryAt` (nobody may claim it before), or, without `retryAt`,
   * marked failed for good.
   */
  async markFailed(id: string, error: string, retryAt?: Date): Promise<void> {
    await this.db
      .updateTable('scheduled_messages')
      .set({
        status: retryAt ? 'pending' : 'failed',
        claimed_until: retryAt ?? null,
        last_error: error,
      })
      .where('id', '=', id)
      .execute();
  }
}
