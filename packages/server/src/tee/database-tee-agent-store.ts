import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema';
import type { TeeAgentStore } from './tee-agent-store';

/** A {@link TeeAgentStore} in the server's database: a restart re-uses each agent's registration. */
export function createDatabaseTeeAgentStore(db: Kysely<DatabaseSchema>): TeeAgentStore {
  return {
    async get(agentId) {
      const row = await db
        .selectFrom('tee_agents')
        .selectAll()
        .where('agent_id', '=', agentId)
        .executeTakeFirst();
      return (
        row && {
          id: row.id,
          agentId: row.agent_id,
          agentName: row.agent_name,
          publicKey: row.public_key,
          createdAt: Number(row.created_at),
          attestation: row.attestation,
        }
      );
    },
    async put(record) {
      const values = {
        id: record.id,
        agent_name: record.agentName,
        public_key: record.publicKey,
        created_at: record.createdAt,
        attestation: record.attestation,
      };
      await db
        .insertInto('tee_agents')
        .values({ agent_id: record.agentId, ...values })
        .onConflict((conflict) => conflict.column('agent_id').doUpdateSet(values))
        .execute();
    },
  };
}
