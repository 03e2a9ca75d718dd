import { sql, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
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

/** Summaries remembered in this process (channels and agents), the least recently used forgotten first. */
const MAX_REMEMBERED = 10_000;

/** The running summaries of channels (`channel_summaries`), one per channel and agent. */
export class ChannelSummaryStore {
  readonly #db: Kysely<DatabaseSchema>;
  /**
   * The summary this process last stored or read, per channel and agent. Only ever a summary that was stored, so
   * using it is never wrong: one another process has moved on since is merely older (a save over it fails, see
   * {@link save}). A cleared history is never served from it: its covered message is then not among the recent
   * ones. Forgotten with the stored ones ({@link forget}, {@link forgetEntity}).
   */
  readonly #remembered = new LRUCache<string, ChannelSummary>({ max: MAX_REMEMBERED });
  /** Only this process writes the database (the embedded PGlite): what it remembers is what is stored. */
  readonly exclusive: boolean;

  constructor(db: Kysely<DatabaseSchema>, options: { exclusive?: boolean } = {}) {
    this.#db = db;
    this.exclusive = options.exclusive === true;
  }

  /** The summary this process remembers of the channel for the agent, else the stored one (then remembered). */
  async remembered(channelId: string, agentId: string): Promise<ChannelSummary | undefined> {
    return this.#remembered.get(keyOf(channelId, agentId)) ?? this.get(channelId, agentId);
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
    const summary = row && {
      summary: row.summary,
      coveredUntil: row.covered_until,
      coveredCount: row.covered_count,
    };
    const key = keyOf(channelId, agentId);
    if (summary) this.#remembered.set(key, summary);
    else this.#remembered.delete(key);
    return summary;
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
    this.#forgetRemembered(agentId);
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
    // And what a read made while it ran remembered again.
    this.#forgetRemembered(agentId);
    return Number(result.numDeletedRows);
  }

  /** Forgets an agent's summary of one channel (or of every channel). Answers how many were removed. */
  async forget(agentId: string, channelId?: string): Promise<number> {
    this.#forgetRemembered(agentId, channelId);
    let query = this.#db.deleteFrom('channel_summaries').where('agent_id', '=', agentId);
    if (channelId !== undefined) query = query.where('channel_id', '=', channelId);
    const result = await storageCall('channel summary', () => query.executeTakeFirst());
    this.#forgetRemembered(agentId, channelId);
    return Number(result.numDeletedRows);
  }

  /**
   * Stores a summary if the stored one still covers up to `previous` (undefined: there was none): of two
   * processes updating one summary at once, the first wins and the other's update is dropped (false). A summary
   * forgotten meanwhile (a person's memories deleted) is not brought back by an update begun before: it is
   * rebuilt from the start.
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
      previous === undefined
        ? this.#db
            .insertInto('channel_summaries')
            .values({ channel_id: channelId, agent_id: agentId, ...values })
            // A stored summary whose covered message is gone is replaced whatever it covered.
            .onConflict((conflict) =>
              conflict
                .columns(['channel_id', 'agent_id'])
                .doUpdateSet(values)
                .where(
                  sql<boolean>`not exists (select 1 from messages where id = channel_summaries.covered_until)`,
                ),
            )
            .executeTakeFirst()
            .then((row) => Number(row.numInsertedOrUpdatedRows ?? 0))
        : this.#db
            .updateTable('channel_summaries')
            .set(values)
            .where('channel_id', '=', channelId)
            .where('agent_id', '=', agentId)
            .where('covered_until', '=', previous)
            .executeTakeFirst()
            .then((row) => Number(row.numUpdatedRows)),
    );
    const saved = result > 0;
    if (saved) this.#remembered.set(keyOf(channelId, agentId), next);
    return saved;
  }

  #forgetRemembered(agentId: string, channelId?: string): void {
    if (channelId !== undefined) {
      this.#remembered.delete(keyOf(channelId, agentId));
      return;
    }
    const suffix = keyOf('', agentId);
    for (const key of [...this.#remembered.keys()])
      if (key.endsWith(suffix)) this.#remembered.delete(key);
  }
}

const keyOf = (channelId: string, agentId: string) => `${channelId}:${agentId}`;
