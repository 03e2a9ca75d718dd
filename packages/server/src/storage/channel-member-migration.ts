import { type ColumnType, type Kysely, sql } from 'kysely';

/**
 * Who may see a channel (migration 0025): one row per person and channel, `owner` (who created it) or `member`
 * (added by an owner or an admin). Written only by the server from a verified identity, never from a client's
 * claim: `channel_participants` stays the elizaOS-shaped list clients edit, this table is what access asks.
 *
 * No foreign key to `channels`: a message into a channel that does not exist yet creates it, and its author
 * claims it first (the claim must be taken before the channel row exists, so two people posting into the same
 * new id cannot both own it). At most one owner per channel (a unique partial index decides the race); a row
 * trigger removes a deleted channel's members, so an id deleted and used again starts with nobody.
 */
export async function createChannelMemberTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('channel_members')
    .addColumn('channel_id', 'uuid', (column) => column.notNull())
    .addColumn('entity_id', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull().check(sql`role in ('owner', 'member')`))
    .addColumn('added_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('channel_members_pk', ['channel_id', 'entity_id'])
    .execute();
  await db.schema
    .createIndex('channel_members_entity_idx')
    .on('channel_members')
    .columns(['entity_id', 'channel_id'])
    .execute();
  await sql`create unique index channel_members_one_owner_idx
              on channel_members (channel_id) where role = 'owner'`.execute(db);
  await sql`create function parley_channel_members_on_delete() returns trigger
              language plpgsql as $$
              begin
                delete from channel_members where channel_id = old.id;
                return old;
              end $$`.execute(db);
  await sql`create trigger channel_members_on_channel_delete after delete on channels
              for each row execute function parley_channel_members_on_delete()`.execute(db);
}

/** `channel_members`, as Kysely sees it. */
export interface ChannelMemberTables {
  channel_members: {
    channel_id: string;
    entity_id: string;
    role: 'owner' | 'member';
    added_at: ColumnType<Date, Date | string | undefined, never>;
  };
}
