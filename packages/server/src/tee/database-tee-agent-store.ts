import type { TeeAgent } from '@parley/core';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema';
import type { TeeAgentStore } from './tee-agent-store';

/**
 * A {@link TeeAgentStore} in the server's database: a restart re-uses each agent's registration, and processes
 * sharing one PostgreSQL agree on it (first insert wins; a replacement is a compare-and-set).
 */
export function createDatabaseTeeAgentStore(db: Kysely<DatabaseSchema>): TeeAgentStore {
  async function get(agentId: string): Promise<TeeAgent | undefined> {
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
  }
  const valuesOf = (record: TeeAgent) => ({
    id: record.id,
    agent_name: record.agentName,
    public_key: record.publicKey,
    created_at: record.createdAt,
    attestation: record.attestation,
  });
  const stored = async (agentId: string) => {
    const record = await get(agentId);
    if (!record) throw new Error(`TEE registration of ${agentId} vanished`);
    return record;
  };
  return {
    get,
    async putIfAbsent(record) {
      await db
        .insertInto('tee_agents')
        .values({ agent_id: record.agentId, ...valuesOf(record) })
        .onConflict((conflict) => conflict.column('agent_id').doNothing())
        .execute();
      return stored(record.agentId);
    },
    async replace(record, expected) {
      await db
        .updateTable('tee_agents')
        .set(valuesOf(record))
        .where('agent_id', '=', record.agentId)
        .where('id', '=', expected.id)
        .where('agent_name', '=', expected.agentName)
        .where('attestation', '=', expected.attestation)
        .execute();
      return stored(record.agentId);
    },
  };
}
