import type { TeeAgent } from '@parley/core';

/**
 * Where registrations live between restarts, and between processes that share a database. Writes are
 * conditional so that processes registering the same agent at once agree on one record: the first insert wins,
 * and a replacement only applies over the record it was computed from.
 */
export interface TeeAgentStore {
  get(agentId: string): Promise<TeeAgent | undefined>;
  /** Stores `record` unless the agent already has one; resolves with the stored record either way. */
  putIfAbsent(record: TeeAgent): Promise<TeeAgent>;
  /**
   * Replaces `expected` (the stored record the caller read) with `record`; when the stored record changed in
   * between, leaves it. Resolves with the stored record either way.
   */
  replace(record: TeeAgent, expected: TeeAgent): Promise<TeeAgent>;
}

const same = (a: TeeAgent, b: TeeAgent) =>
  a.id === b.id && a.agentName === b.agentName && a.attestation === b.attestation;

/** A {@link TeeAgentStore} in memory: registrations last as long as the process. */
export function createMemoryTeeAgentStore(): TeeAgentStore {
  const records = new Map<string, TeeAgent>();
  return {
    get: (agentId) => Promise.resolve(records.get(agentId)),
    putIfAbsent(record) {
      if (!records.has(record.agentId)) records.set(record.agentId, record);
      return Promise.resolve(records.get(record.agentId)!);
    },
    replace(record, expected) {
      const stored = records.get(record.agentId);
      if (!stored || same(stored, expected)) records.set(record.agentId, record);
      return Promise.resolve(records.get(record.agentId)!);
    },
  };
}
