import type { TeeAgent } from '@parley/core';

/**
 * Where registrations live between restarts. The TEE service keeps no database of its own: give it a store
 * backed by Parley's storage to keep `createdAt` (and the original quote) across restarts. `id` and `publicKey`
 * are deterministic per salt and agent, so they are stable even with the in-memory default.
 */
export interface TeeAgentStore {
  get(agentId: string): Promise<TeeAgent | undefined>;
  put(record: TeeAgent): Promise<void>;
}

/** A {@link TeeAgentStore} in memory: registrations last as long as the process. */
export function createMemoryTeeAgentStore(): TeeAgentStore {
  const records = new Map<string, TeeAgent>();
  return {
    get: (agentId) => Promise.resolve(records.get(agentId)),
    put: (record) => {
      records.set(record.agentId, record);
      return Promise.resolve();
    },
  };
}
