import { type Kysely, sql } from 'kysely';

/**
 * Files uploaded to channels (migration 0018): the bytes in the database, so that every process serves them and
 * a backup holds them. Each belongs to a channel (deleted with it) and is read by id.
 */
export async function createAttachmentTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('attachments')
    .addColumn('id', 'uuid', (column) => column.primaryKey())
    .addColumn('channel_id', 'uuid', (column) =>
      column.notNull().references('channels.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('content_type', 'text', (column) => column.notNull())
    .addColumn('size', 'integer', (column) => column.notNull())
    .addColumn('data', 'bytea', (column) => column.notNull())
    .addColumn('uploaded_by', 'text')
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('attachments_channel_idx')
    .on('attachments')
    .column('channel_id')
    .execute();
}
