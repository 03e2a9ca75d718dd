import { type Kysely, sql } from 'kysely';

/**
 * Channels as a resource (migration 0016): a name, a type (`GROUP` or `DM`), a topic, metadata, when it last
 * changed and when its last message was stored, and who is in it (`channel_participants`). A channel created on
 * first use keeps a null name (the API derives one from its id) until renamed.
 *
 * `last_message_at` is written by the message store in the statement that stores a batch of messages (one row
 * per channel of the batch); existing channels get it from their newest message, once, here. Listing orders by
 * activity, `coalesce(last_message_at, created_at)`, then id: the expression index serves that order and its
 * keyset cursor.
 */
export async function createChannelColumns(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('channels')
    .addColumn('name', 'text')
    .addColumn('type', 'text', (column) => column.notNull().defaultTo('GROUP'))
    .addColumn('topic', 'text')
    .addColumn('metadata', 'jsonb', (column) => column.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn('last_message_at', 'timestamptz')
    .execute();
  await sql`update channels set updated_at = created_at,
              last_message_at = (select max(created_at) from messages where messages.channel_id = channels.id)`.execute(
    db,
  );
  await sql`create index channels_activity_idx
              on channels ((coalesce(last_message_at, created_at)) desc, id desc)`.execute(db);
  await db.schema
    .createTable('channel_participants')
    .addColumn('channel_id', 'uuid', (column) =>
      column.notNull().references('channels.id').onDelete('cascade'),
    )
    .addColumn('participant_id', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull().defaultTo('member'))
    .addColumn('joined_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('channel_participants_pk', ['channel_id', 'participant_id'])
    .execute();
  await db.schema
    .createIndex('channel_participants_participant_idx')
    .on('channel_participants')
    .columns(['participant_id', 'channel_id'])
    .execute();
}
