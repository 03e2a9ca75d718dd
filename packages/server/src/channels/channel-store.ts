import { type Channel, type ChannelType, DEFAULT_SERVER_ID, ParleyError } from '@parley/core';
import { type Kysely, type Selectable, type Transaction, sql } from 'kysely';
import type { ChannelTable, DatabaseSchema } from '../storage/schema';
import { isUniqueViolation } from '../storage/message-store';
import { assertStorable, storageCall, toStorageError } from '../storage/to-storage-error';
import { decodeCursor, encodeCursor } from './channel-cursor';

/** Most rows one delete statement removes: a channel of 100k messages never holds one long transaction. */
export const DELETE_BATCH_ROWS = 1000;

/**
 * A change's `updated_at`: now, and always later than the previous change's (changes to a row take turns on its
 * lock), so that the newest `updatedAt` of the `channelUpdated` events a client got is the channel's state.
 */
const NEXT_UPDATED_AT = sql<Date>`greatest(clock_timestamp(), updated_at + interval '1 millisecond')`;

/** A channel to create. */
export interface NewChannel {
  id: string;
  name: string;
  type: ChannelType;
  agentId: string | null;
  topic: string | null;
  metadata: Record<string, unknown>;
  /** People and agents in it from the start (ids unique). */
  participants: { id: string; role: 'member' | 'agent' }[];
  createdAt: Date;
}

/** Fields of a channel to change (`undefined`: unchanged). */
export interface ChannelChanges {
  name?: string;
  topic?: string | null;
  metadata?: Record<string, unknown>;
  agentId?: string | null;
}

/** A page query of channels. */
export interface ChannelPageQuery {
  limit: number;
  cursor?: string;
  participantId?: string;
  agentId?: string;
  /** Only channels this person is a member of (`channel_members`): a user's listing. */
  memberId?: string;
}

type ChannelRow = Selectable<ChannelTable> & { activity?: string };

const CHANNEL_COLUMNS = [
  'id',
  'server_id',
  'agent_id',
  'created_at',
  'name',
  'type',
  'topic',
  'metadata',
  'updated_at',
  'last_message_at',
] as const;

/**
 * The name a client gives a channel it wants the server to name: after the channel's first reply, the channel
 * namer renames it by a short summary of its first message (see `channel-namer.ts`). The chat page names the
 * channels it makes so; a channel made without a name, or by its first message, is not renamed (naming costs a
 * model call, which only a channel that asks for it gets).
 */
export const NEW_CHANNEL_NAME = 'New chat';

/** The name of a channel never named: from its id, as elizaOS names channels it creates on first use. */
export function derivedChannelName(channelId: string): string {
  return `Chat ${channelId.slice(0, 8)}`;
}

/** A row as the API answers it. */
export function toChannel(row: ChannelRow): Channel {
  return {
    id: row.id,
    messageServerId: row.server_id ?? DEFAULT_SERVER_ID,
    name: row.name ?? derivedChannelName(row.id),
    type: row.type,
    agentId: row.agent_id,
    ...(row.topic === null ? {} : { topic: row.topic }),
    metadata: row.metadata ?? {},
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    lastMessageAt: row.last_message_at ? new Date(row.last_message_at).toISOString() : null,
  };
}

/** Channel rows: create, read, page, change, delete; and their messages deleted in bounded batches. */
export class ChannelStore {
  /**
   * @param settleActivity writes the channel activity this process holds back from the write path (see
   *   `storage/channel-activity.ts`), before a read that shows or orders by it.
   */
  constructor(
    readonly db: Kysely<DatabaseSchema>,
    private readonly sync: () => Promise<void>,
    private readonly settleActivity: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** Creates a channel with its first participants; CONFLICT when the id is taken. */
  async create(channel: NewChannel): Promise<Channel> {
    assertStorable({
      texts: { name: channel.name, topic: channel.topic },
      json: { metadata: channel.metadata },
    });
    try {
      const row = await this.db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('channels')
          .values({
            id: channel.id,
            server_id: DEFAULT_SERVER_ID,
            agent_id: channel.agentId,
            created_at: channel.createdAt,
            updated_at: channel.createdAt,
            name: channel.name,
            type: channel.type,
            topic: channel.topic,
            metadata: JSON.stringify(channel.metadata),
          })
          .returning(CHANNEL_COLUMNS)
          .executeTakeFirstOrThrow();
        if (channel.participants.length > 0) {
          await trx
            .insertInto('channel_participants')
            .values(
              channel.participants.map((participant) => ({
                channel_id: channel.id,
                participant_id: participant.id,
                role: participant.role,
              })),
            )
            .execute();
        }
        return inserted;
      });
      await this.sync();
      return toChannel(row);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ParleyError('CONFLICT', `A channel with id ${channel.id} already exists`);
      }
      throw toStorageError(error, 'channel');
    }
  }

  /** A channel, if it exists. */
  async get(channelId: string, trx?: Transaction<DatabaseSchema>): Promise<Channel | undefined> {
    if (!trx) await this.settleActivity();
    const row = await storageCall('channel', () =>
      (trx ?? this.db)
        .selectFrom('channels')
        .select(CHANNEL_COLUMNS)
        .where('id', '=', channelId)
        .executeTakeFirst(),
    );
    return row && toChannel(row);
  }

  /**
   * A channel's name (null: none); undefined when there is no such channel. Unlike `get`, it does not first
   * write the activity held back from the write path: a name does not need it, and the channel namer asks after
   * each first reply.
   */
  async nameOf(channelId: string): Promise<string | null | undefined> {
    const row = await storageCall('channel', () =>
      this.db.selectFrom('channels').select('name').where('id', '=', channelId).executeTakeFirst(),
    );
    return row?.name;
  }

  /** A channel, or NOT_FOUND. */
  async require(channelId: string): Promise<Channel> {
    const channel = await this.get(channelId);
    if (!channel) throw new ParleyError('NOT_FOUND', `No channel ${channelId}`);
    return channel;
  }

  /** A page of channels, newest activity (last message, else creation) first, and the next page's cursor. */
  async page(query: ChannelPageQuery): Promise<{ channels: Channel[]; nextCursor: string | null }> {
    await this.settleActivity();
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const activity = sql<string>`coalesce(last_message_at, created_at)`;
    let select = this.db
      .selectFrom('channels')
      .select(CHANNEL_COLUMNS)
      .select(sql<string>`(coalesce(last_message_at, created_at))::text`.as('activity'))
      .orderBy(activity, 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit + 1);
    if (after) {
      select = select.where(
        sql<boolean>`(coalesce(last_message_at, created_at), id) < (${after.activity}::timestamptz, ${after.id}::uuid)`,
      );
    }
    if (query.participantId !== undefined) {
      const participantId = query.participantId;
      select = select.where('id', 'in', (db) =>
        db
          .selectFrom('channel_participants')
          .select('channel_id')
          .where('participant_id', '=', participantId),
      );
    }
    if (query.memberId !== undefined) {
      const memberId = query.memberId;
      select = select.where('id', 'in', (db) =>
        db.selectFrom('channel_members').select('channel_id').where('entity_id', '=', memberId),
      );
    }
    if (query.agentId !== undefined) {
      const agentId = query.agentId;
      select = select.where((eb) =>
        eb.or([
          eb('agent_id', '=', agentId),
          eb(
            'id',
            'in',
            eb
              .selectFrom('channel_participants')
              .select('channel_id')
              .where('participant_id', '=', agentId)
              .where('role', '=', 'agent'),
          ),
        ]),
      );
    }
    const rows = await storageCall('channel list', () => select.execute());
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      channels: page.map(toChannel),
      nextCursor:
        rows.length > query.limit && last
          ? encodeCursor({ activity: last.activity, id: last.id })
          : null,
    };
  }

  /**
   * Changes a channel's fields (and `updated_at`) in one statement: renames released together each apply
   * whole, the last one wins, and every answer is a state the row really had. Undefined for an unknown channel.
   */
  async update(channelId: string, changes: ChannelChanges): Promise<Channel | undefined> {
    assertStorable({
      texts: { name: changes.name, topic: changes.topic },
      json: { metadata: changes.metadata },
    });
    const row = await storageCall('channel', () =>
      this.db
        .updateTable('channels')
        .set({
          ...(changes.name === undefined ? {} : { name: changes.name }),
          ...(changes.topic === undefined ? {} : { topic: changes.topic }),
          ...(changes.metadata === undefined ? {} : { metadata: JSON.stringify(changes.metadata) }),
          ...(changes.agentId === undefined ? {} : { agent_id: changes.agentId }),
          updated_at: NEXT_UPDATED_AT,
        })
        .where('id', '=', channelId)
        .returning(CHANNEL_COLUMNS)
        .executeTakeFirst(),
    );
    if (!row) return undefined;
    await this.sync();
    return toChannel(row);
  }

  /**
   * Names a channel still called {@link NEW_CHANNEL_NAME}, in one statement (a name a person gave meanwhile is kept);
   * the renamed channel, or undefined when it is named already or gone.
   */
  async nameNewChat(channelId: string, name: string): Promise<Channel | undefined> {
    assertStorable({ texts: { name } });
    const row = await storageCall('channel', () =>
      this.db
        .updateTable('channels')
        .set({ name, updated_at: NEXT_UPDATED_AT })
        .where('id', '=', channelId)
        .where('name', '=', NEW_CHANNEL_NAME)
        .returning(CHANNEL_COLUMNS)
        .executeTakeFirst(),
    );
    if (!row) return undefined;
    await this.sync();
    return toChannel(row);
  }

  /** Deletes a channel's row and participants; whether it existed. Its messages go with `deleteMessages`. */
  async deleteRow(channelId: string): Promise<boolean> {
    const result = await storageCall('channel', () =>
      this.db.deleteFrom('channels').where('id', '=', channelId).executeTakeFirst(),
    );
    await this.sync();
    return result.numDeletedRows > 0n;
  }

  /**
   * Deletes every message of a channel, {@link DELETE_BATCH_ROWS} per statement (each its own transaction), until
   * none is left; how many. Messages stored meanwhile are deleted too, up to `maxRounds` batches.
   */
  async deleteMessages(channelId: string, maxRounds = Number.MAX_SAFE_INTEGER): Promise<number> {
    let total = 0;
    for (let round = 0; round < maxRounds; round++) {
      const result = await storageCall('messages', () =>
        sql`delete from messages where id in (
              select id from messages where channel_id = ${channelId}::uuid limit ${DELETE_BATCH_ROWS})`.execute(
          this.db,
        ),
      );
      const deleted = Number(result.numAffectedRows ?? 0n);
      total += deleted;
      if (deleted < DELETE_BATCH_ROWS) break;
    }
    await this.sync();
    return total;
  }

  /** Marks a channel as without messages (its history was cleared). */
  async clearActivity(channelId: string): Promise<void> {
    await storageCall('channel', () =>
      this.db
        .updateTable('channels')
        .set({ last_message_at: null, updated_at: NEXT_UPDATED_AT })
        .where('id', '=', channelId)
        .execute(),
    );
    await this.sync();
  }

  /** Deletes one message of a channel; whether it was there. */
  async deleteMessage(channelId: string, messageId: string): Promise<boolean> {
    const result = await storageCall('message', () =>
      this.db
        .deleteFrom('messages')
        .where('id', '=', messageId)
        .where('channel_id', '=', channelId)
        .executeTakeFirst(),
    );
    await this.sync();
    return result.numDeletedRows > 0n;
  }
}
