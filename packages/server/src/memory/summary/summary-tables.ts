import type { ColumnType } from 'kysely';

/**
 * `channel_summaries`: the running summary of a channel's turns that fell out of an agent's prompt window, one
 * row per channel and agent (two agents of one channel may keep different windows). `covered_until` is the id of
 * the newest message the summary covers: the next update summarises only the turns after it.
 */
export interface ChannelSummaryTable {
  channel_id: string;
  agent_id: string;
  summary: string;
  covered_until: string;
  /** How many messages the summary covers, in all. */
  covered_count: number;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** The tables of running summaries, as Kysely sees them. */
export interface SummaryTables {
  channel_summaries: ChannelSummaryTable;
}
