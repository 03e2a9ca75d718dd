import { type ChannelParticipant, MAX_CHANNEL_PARTICIPANTS, ParleyError } from '@parley/core';
import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from '../storage/schema';
import { storageCall } from '../storage/to-storage-error';

/** A participant's role: a person, or an agent that joined. */
export type ParticipantRole = ChannelParticipant['role'];

/**
 * Who is in each channel (`channel_participants`), at most {@link MAX_CHANNEL_PARTICIPANTS} per channel. A
 * change takes a lock on the channel's row, so that joins released together cannot pass the bound together,
 * and fails NOT_FOUND when the channel does not exist.
 */
export class ParticipantStore {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly sync: () => Promise<void>,
  ) {}

  /** The participants of a channel, in the order they joined. */
  async list(channelId: string): Promise<ChannelParticipant[]> {
    const rows = await storageCall('participants', () =>
      this.db
        .selectFrom('channel_participants')
        .select(['participant_id', 'role', 'joined_at'])
        .where('channel_id', '=', channelId)
        .orderBy('joined_at')
        .orderBy('participant_id')
        .limit(MAX_CHANNEL_PARTICIPANTS)
        .execute(),
    );
    return rows.map((row) => ({
      id: row.participant_id,
      channelId,
      userId: row.participant_id,
      role: row.role,
      joinedAt: new Date(row.joined_at).toISOString(),
    }));
  }

  /** Adds a participant; false when already in (its role then unchanged). */
  async add(channelId: string, participantId: string, role: ParticipantRole): Promise<boolean> {
    const added = await this.#locked(channelId, async (db) => {
      const result = await sql<{ participant_id: string }>`
        insert into channel_participants (channel_id, participant_id, role)
        select ${channelId}::uuid, ${participantId}::text, ${role}::text
        where (select count(*) from channel_participants where channel_id = ${channelId}::uuid)
              < ${MAX_CHANNEL_PARTICIPANTS}
           or exists (select 1 from channel_participants
                      where channel_id = ${channelId}::uuid and participant_id = ${participantId}::text)
        on conflict (channel_id, participant_id) do nothing
        returning participant_id`.execute(db);
      if (result.rows.length > 0) return true;
      const present = await db
        .selectFrom('channel_participants')
        .select('participant_id')
        .where('channel_id', '=', channelId)
        .where('participant_id', '=', participantId)
        .executeTakeFirst();
      if (present) return false;
      throw new ParleyError(
        'CONFLICT',
        `Channel ${channelId} has ${MAX_CHANNEL_PARTICIPANTS} participants, the most it can hold`,
      );
    });
    await this.sync();
    return added;
  }

  /** Removes a participant (of `role` only, when given); false when it was not in. */
  async remove(channelId: string, participantId: string, role?: ParticipantRole): Promise<boolean> {
    const removed = await this.#locked(channelId, async (db) => {
      let statement = db
        .deleteFrom('channel_participants')
        .where('channel_id', '=', channelId)
        .where('participant_id', '=', participantId);
      if (role) statement = statement.where('role', '=', role);
      return (await statement.executeTakeFirst()).numDeletedRows > 0n;
    });
    await this.sync();
    return removed;
  }

  /** Makes the channel's people (`member`s) exactly `memberIds`; agents stay. */
  async replaceMembers(channelId: string, memberIds: readonly string[]): Promise<void> {
    const unique = [...new Set(memberIds)];
    await this.#locked(channelId, async (db) => {
      let removal = db
        .deleteFrom('channel_participants')
        .where('channel_id', '=', channelId)
        .where('role', '=', 'member');
      if (unique.length > 0) removal = removal.where('participant_id', 'not in', unique);
      await removal.execute();
      if (unique.length === 0) return;
      await db
        .insertInto('channel_participants')
        .values(
          unique.map((id) => ({
            channel_id: channelId,
            participant_id: id,
            role: 'member' as const,
          })),
        )
        .onConflict((conflict) => conflict.columns(['channel_id', 'participant_id']).doNothing())
        .execute();
      const { count } = await db
        .selectFrom('channel_participants')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('channel_id', '=', channelId)
        .executeTakeFirstOrThrow();
      if (Number(count) > MAX_CHANNEL_PARTICIPANTS) {
        throw new ParleyError(
          'BAD_REQUEST',
          `A channel holds at most ${MAX_CHANNEL_PARTICIPANTS} participants, agents included`,
        );
      }
    });
    await this.sync();
  }

  /** Runs `work` in a transaction holding the channel's row lock; NOT_FOUND without the channel. */
  #locked<T>(channelId: string, work: (db: Kysely<DatabaseSchema>) => Promise<T>): Promise<T> {
    return storageCall('participants', () =>
      this.db.transaction().execute(async (trx) => {
        const channel = await trx
          .selectFrom('channels')
          .select('id')
          .where('id', '=', channelId)
          .forUpdate()
          .executeTakeFirst();
        if (!channel) throw new ParleyError('NOT_FOUND', `No channel ${channelId}`);
        return work(trx);
      }),
    );
  }
}
