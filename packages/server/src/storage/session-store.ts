import type { Kysely } from 'kysely';
import type { DatabaseSchema } from './schema';
import { storageCall } from './to-storage-error';

/** An elizaOS session: a user and an agent talking in a channel of their own. */
export interface SessionRecord {
  id: string;
  agentId: string;
  userId: string;
  channelId: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
  lastActivity: Date;
}

function toRecord(row: {
  id: string;
  agent_id: string;
  user_id: string;
  channel_id: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  last_activity: Date;
}): SessionRecord {
  return {
    id: row.id,
    agentId: row.agent_id,
    userId: row.user_id,
    channelId: row.channel_id,
    metadata: row.metadata,
    createdAt: row.created_at,
    lastActivity: row.last_activity,
  };
}

/** `sessions`, shared by every process of the database. */
export class SessionStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #sync: () => Promise<void>;

  constructor(db: Kysely<DatabaseSchema>, sync: () => Promise<void> = () => Promise.resolve()) {
    this.#db = db;
    this.#sync = sync;
  }

  create(session: Omit<SessionRecord, 'createdAt' | 'lastActivity'>): Promise<SessionRecord> {
    return storageCall('store a session', async () => {
      const row = await this.#db
        .insertInto('sessions')
        .values({
          id: session.id,
          agent_id: session.agentId,
          user_id: session.userId,
          channel_id: session.channelId,
          metadata: JSON.stringify(session.metadata),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.#sync();
      return toRecord(row);
    });
  }

  get(id: string): Promise<SessionRecord | undefined> {
    return storageCall('read a session', async () => {
      const row = await this.#db
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRecord(row);
    });
  }

  /** Marks the session used now. */
  touch(id: string): Promise<void> {
    return storageCall('store a session', async () => {
      await this.#db
        .updateTable('sessions')
        .set({ last_activity: new Date() })
        .where('id', '=', id)
        .execute();
      await this.#sync();
    });
  }

  /** The most recently active sessions, at most `limit`. */
  list(limit: number): Promise<SessionRecord[]> {
    return storageCall('read sessions', async () => {
      const rows = await this.#db
        .selectFrom('sessions')
        .selectAll()
        .orderBy('last_activity', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toRecord);
    });
  }

  /** How many sessions there are. */
  count(): Promise<number> {
    return storageCall('read sessions', async () => {
      const row = await this.#db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    });
  }

  /** Removes a session; false when there was none. Its channel and messages stay. */
  delete(id: string): Promise<boolean> {
    return storageCall('delete a session', async () => {
      const result = await this.#db.deleteFrom('sessions').where('id', '=', id).executeTakeFirst();
      await this.#sync();
      return result.numDeletedRows > 0n;
    });
  }
}
