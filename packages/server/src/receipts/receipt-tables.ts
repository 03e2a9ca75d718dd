import { type ColumnType, type Generated, type Kysely, sql } from 'kysely';

/**
 * `receipts`: every signed receipt, in the order each was appended (`position`, the keyset of the channel's
 * pages). A chain is an agent in a channel: `(agent_id, channel_id, seq)` is unique, so two processes can never
 * both append the same link. Receipts are never deleted: deleting a reply appends a tombstone to its chain.
 */
export interface ReceiptTable {
  position: Generated<string>;
  id: string;
  channel_id: string;
  agent_id: string;
  seq: number;
  kind: 'reply' | 'tombstone';
  message_id: string | null;
  hash: string;
  /** The receipt's JSON text, exactly as signed and served (never re-encoded by the database). */
  receipt: string;
  /** The digest of the registration that vouches for the key (`receipt_attestations.digest`). */
  attestation: string;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** `receipt_attestations`: each agent registration (its quote) that signed receipts, kept for their readers. */
export interface ReceiptAttestationTable {
  digest: string;
  registration: string;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** The receipt tables, as Kysely sees them. */
// A type, not an interface: Kysely's `withTables` needs an index signature.
export type ReceiptTables = {
  receipts: ReceiptTable;
  receipt_attestations: ReceiptAttestationTable;
  /** The column 0022 adds to `approval_requests` (null: decided before it, or expired). */
  approval_requests: { decided_by: string | null };
};

/** Migration 0022: the receipt tables. */
export async function createReceiptTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('receipt_attestations')
    .addColumn('digest', 'text', (column) => column.primaryKey())
    .addColumn('registration', 'text', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('receipts')
    .addColumn('position', 'bigserial', (column) => column.primaryKey())
    // Not indexed: receipts are read by message and by channel, never by their own id.
    .addColumn('id', 'uuid', (column) => column.notNull())
    .addColumn('channel_id', 'uuid', (column) => column.notNull())
    .addColumn('agent_id', 'uuid', (column) => column.notNull())
    .addColumn('seq', 'integer', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('message_id', 'uuid')
    .addColumn('hash', 'text', (column) => column.notNull())
    .addColumn('receipt', 'text', (column) => column.notNull())
    .addColumn('attestation', 'text', (column) =>
      column.notNull().references('receipt_attestations.digest'),
    )
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('receipts_chain_seq', ['agent_id', 'channel_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('receipts_channel_position_idx')
    .on('receipts')
    .columns(['channel_id', 'position'])
    .execute();
  // Who decided each approval, for the receipts that sign it: `api` (the API key's holder) or `socket:<entity>`.
  await db.schema.alterTable('approval_requests').addColumn('decided_by', 'text').execute();
  // One reply receipt per message, whichever process records it.
  await sql`CREATE UNIQUE INDEX receipts_reply_message_idx ON receipts (message_id) WHERE kind = 'reply'`.execute(
    db,
  );
}
