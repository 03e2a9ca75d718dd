import { type Kysely, type QueryCreator, sql } from 'kysely';
import type { ChannelActivityRow } from './channel-activity';
import type { NewMessage } from './new-message';
import type { DatabaseSchema } from './schema';

/**
 * What a batch of messages writes to `channels`, as common table expressions of the statement that inserts the
 * messages (one round trip): the channels new to this process upserted (created on first use, keeping an
 * existing agent) with their activity, and the known ones' `last_message_at` moved forward where `due` says
 * so (at most once per channel a second, see `ChannelActivity`), one row per channel, none per message.
 *
 * @param created the first message of each channel this process does not know to exist.
 * @param messages every message of the batch.
 * @param due of the known channels (each with its newest time in the batch), those whose activity to write now.
 */
export function withChannelWrites(
  db: Kysely<DatabaseSchema>,
  created: readonly NewMessage[],
  messages: readonly NewMessage[],
  due: (latest: ReadonlyMap<string, Date>) => readonly ChannelActivityRow[] = (latest) => [
    ...latest,
  ],
): QueryCreator<DatabaseSchema> {
  // Each channel's newest message of the batch: its `last_message_at`.
  const latest = new Map<string, Date>();
  for (const message of messages) {
    const seen = latest.get(message.channelId);
    if (!seen || seen < message.createdAt) latest.set(message.channelId, message.createdAt);
  }
  const createdIds = new Set(created.map((message) => message.channelId));
  const known = due(new Map([...latest].filter(([channelId]) => !createdIds.has(channelId))));
  let statement: QueryCreator<DatabaseSchema> = db;
  if (created.length > 0) {
    statement = statement.with('created_channels', (query) =>
      query
        .insertInto('channels')
        .values(
          created.map((message) => ({
            id: message.channelId,
            server_id: message.serverId,
            agent_id: message.channelAgentId ?? null,
            created_at: message.createdAt,
            updated_at: message.createdAt,
            last_message_at: latest.get(message.channelId)!,
          })),
        )
        .onConflict((conflict) =>
          conflict.column('id').doUpdateSet({
            agent_id: sql`coalesce(channels.agent_id, excluded.agent_id)`,
            last_message_at: sql`greatest(channels.last_message_at, excluded.last_message_at)`,
          }),
        ),
    ) as unknown as QueryCreator<DatabaseSchema>;
  }
  if (known.length > 0) {
    statement = statement.with(
      'active_channels',
      // Raw SQL in a CTE is not parenthesised by Kysely: the parentheses are part of it.
      () => sql`(${activityUpdate(known)})`,
    ) as unknown as QueryCreator<DatabaseSchema>;
  }
  return statement;
}

/** Moves each channel's `last_message_at` forward to its time (never back), one statement for all. */
export function activityUpdate(rows: readonly ChannelActivityRow[]) {
  const values = sql.join(
    rows.map(([id, at]) => sql`(${id}::uuid, ${at}::timestamptz)`),
    sql`, `,
  );
  return sql`update channels set last_message_at = latest.at
              from (values ${values}) as latest(id, at)
              where channels.id = latest.id
                and (channels.last_message_at is null or channels.last_message_at < latest.at)`;
}
