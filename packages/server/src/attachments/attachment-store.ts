import type { AttachmentRef } from '@parley/core';
import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from '../storage/schema';
import { storageCall } from '../storage/to-storage-error';

/** A stored attachment with its bytes. */
export interface StoredAttachment extends AttachmentRef {
  channelId: string;
  data: Uint8Array;
}

/** The path an attachment is downloaded from. */
export function attachmentUrl(id: string): string {
  return `/api/messaging/attachments/${id}`;
}

/** `attachments`, shared by every process of the database. */
export class AttachmentStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #sync: () => Promise<void>;

  constructor(db: Kysely<DatabaseSchema>, sync: () => Promise<void> = () => Promise.resolve()) {
    this.#db = db;
    this.#sync = sync;
  }

  /** Whether a channel exists (an upload goes to an existing channel). */
  channelExists(channelId: string): Promise<boolean> {
    return storageCall('read a channel', async () => {
      const row = await this.#db
        .selectFrom('channels')
        .select('id')
        .where('id', '=', channelId)
        .executeTakeFirst();
      return row !== undefined;
    });
  }

  /** Stores a file; resolves with what messages list. */
  create(input: {
    id: string;
    channelId: string;
    name: string;
    contentType: string;
    data: Uint8Array;
    uploadedBy?: string;
  }): Promise<AttachmentRef> {
    return storageCall('store an attachment', async () => {
      await this.#db
        .insertInto('attachments')
        .values({
          id: input.id,
          channel_id: input.channelId,
          name: input.name,
          content_type: input.contentType,
          size: input.data.byteLength,
          data: input.data,
          uploaded_by: input.uploadedBy ?? null,
        })
        .execute();
      await this.#sync();
      return {
        id: input.id,
        url: attachmentUrl(input.id),
        contentType: input.contentType,
        name: input.name,
        size: input.data.byteLength,
      };
    });
  }

  /** One attachment with its bytes. */
  get(id: string): Promise<StoredAttachment | undefined> {
    return storageCall('read an attachment', async () => {
      const row = await this.#db
        .selectFrom('attachments')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        id: row.id,
        url: attachmentUrl(row.id),
        channelId: row.channel_id,
        contentType: row.content_type,
        name: row.name,
        size: row.size,
        data: row.data,
      };
    });
  }

  /**
   * The first `maxBytes` of each text attachment of `ids` in `channelId` (others are skipped): what the model
   * reads. An attachment of another channel is not read, whatever a message's metadata claims.
   */
  texts(
    channelId: string,
    ids: readonly string[],
    maxBytes: number,
  ): Promise<Map<string, Uint8Array>> {
    return storageCall('read attachments', async () => {
      if (ids.length === 0) return new Map<string, Uint8Array>();
      const rows = await this.#db
        .selectFrom('attachments')
        .select(['id', sql<Uint8Array>`substring(data from 1 for ${maxBytes})`.as('head')])
        .where('id', 'in', ids)
        .where('channel_id', '=', channelId)
        .where((eb) =>
          eb.or([
            eb('content_type', 'like', 'text/%'),
            eb('content_type', '=', 'application/json'),
          ]),
        )
        .execute();
      return new Map<string, Uint8Array>(rows.map((row) => [row.id, row.head]));
    });
  }
}
