import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../../storage/schema';
import { storageCall } from '../../storage/to-storage-error';
import type { SummaryTurn } from './summarize-turns';

/** A channel's running summary for one agent. */
export interface ChannelSummary {
  summary: string;
  /** The newest message it covers. */
  coveredUntil: string;
  coveredCount: number;
}

/** The running summaries of channels (`channel_summaries`), one per channel and agent. */
export class ChannelSummaryStore {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  /**
   * The summary of a channel for an agent; undefined when there is none, or when the message it covers up to is
   * gone (the history was cleared or that message deleted): it is then rebuilt from what is stored.
   */
  async get(channelId: string, agentId: string): Promise<ChannelSummary | undefined> {
    const row = await storageCall('channel summary', () =>
      this.#db
        .selectFrom('channel_summaries')
        .innerJoin('messages', 'messages.id', 'channel_summaries.covered_until')
        .select([
          'channel_summaries.summary',
          'channel_summaries.covered_until',
          'channel_summaries.covered_count',
        ])
        .where('channel_summaries.channel_id', '=', channelId)
        .where('channel_summaries.agent_id', '=', agentId)
        .executeTakeFirst(),
    );
    return (
      row && {
        summary: row.summary,
        coveredUntil: row.covered_until,
        coveredCount: row.covered_count,
      }
    );
  }

  /**
   * The channel's messages after `afterId` (from the first when undefined) and before `beforeId`, oldest first,
   * at most `limit`: the turns that fell out of the window since the summary was last updated.
   */
  async turnsBetween(
    channelId: string,
    afterId: string | undefined,
    beforeId: string,
    limit: number,
  ): Promise<SummaryTurn[]> {
    let query = this.#db
      .selectFrom('messages')
      .select(['id', 'author_name', 'content'])
      .where('channel_id', '=', channelId)
      .where(
        sql<boolean>`(created_at, seq) < (select created_at, seq from messages where id = ${beforeId})`,
      )
      .orderBy('created_at')
      .orderBy('seq')
      .limit(limit);
    if (afterId !== undefined) {
      query = query.where(
        sql<boolean>`(created_at, seq) > (select created_at, seq from messages where id = ${afterId})`,
      );
    }
    return storageCall('channel summary turns', () => query.execute());
  }

  /**
   * Forgets an agent's summaries of the channels where `entityId` wrote (a person asked the agent to forget them):
   * each is rebuilt from the stored messages at its channel's next reply. Answers how many were removed.
   */
  async forgetEntity(agentId: string, entityId: string): Promise<number> {
    const result = await storageCall('channel summary', () =>
      this.#db
        .deleteFrom('channel_summaries')
        .where('agent_id', '=', agentId)
        .where((eb) =>
          eb(
            'channel_id',
            'in',
            eb.selectFrom('messages').select('channel_id').where('author_id', '=', entityId),
          ),
        )
        .executeTakeFirst(),
    );
    return Number(result.numDeletedRows);
  }

  /** Forgets an agent's summary of one channel (or of every channel). Answers how many were removed. */
  async forget(agentId: string, channelId?: string): Promise<number> {
    let query = this.#db.deleteFrom('channel_summaries').where('agent_id', '=', agentId);
    if (channelId !== undefined) query = query.where('channel_id', '=', channelId);
    const result = await storageCall('channel summary', () => query.executeTakeFirst());
    return Number(result.numDeletedRows);
  }

  /**
   * Stores a summary if the stored one still covers up to `previous` (undefined: there was none): of two
   * processes updating one summary at once, the first wins and the other's update is dropped (false).
   */
  async save(
    channelId: string,
    agentId: string,
    next: ChannelSummary,
    previous: string | undefined,
  ): Promise<boolean> {
    const values = {
      summary: next.summary,
      covered_until: next.coveredUntil,
      covered_count: next.coveredCount,
      updated_at: new Date(),
    };
    const result = await storageCall('channel summary', () =>
      this.#db
        .insertInto('channel_summaries')
        .values({ channel_id: channelId, agent_id: agentId, ...values })
        .onConflict((conflict) => {
          const update = conflict.columns(['channel_id', 'agent_id']).doUpdateSet(values);
          // A stored summary whose covered message is gone is replaced whatever it covered.
          return previous === undefined
            ? update.where(
                sql<boolean>`not exists (select 1 from messages where id = channel_summaries.covered_until)`,
              )
            : update.where('channel_summaries.covered_until', '=', previous);
        })
        .executeTakeFirst(),
    );
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
