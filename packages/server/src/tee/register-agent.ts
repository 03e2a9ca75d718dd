import { createHash } from 'node:crypto';
import type { TeeAgent } from '@parley/core';
import { agentReportData, toEcdsaAccount, verifyQuote } from '@parley/tee';
import type { DstackGuest } from './dstack/dstack-guest';
import { quoteToBase64 } from './quote-to-base64';
import type { TeeAgentStore } from './tee-agent-store';

/** What {@link registerAgent} needs. */
export interface RegisterAgentContext {
  guest: DstackGuest;
  store: TeeAgentStore;
  salt: string;
  clock: () => number;
  /** Whether quotes under the simulator root are this TEE's own (every mode but PRODUCTION). */
  simulatorQuotes?: boolean;
  /** Where each agent's private key (hex) is kept in memory for signing receipts; never stored or logged. */
  keys?: Map<string, string>;
}

/**
 * Whether a stored registration's quote still verifies as this TEE's quote of that record: an older Parley's
 * simulator quote (another QE identity), an expired certificate or a quote from another kind of TEE is
 * quoted afresh instead of served.
 */
function stillVerifies(record: TeeAgent, simulatorQuotes: boolean): boolean {
  const result = verifyQuote(record.attestation, {
    allowSimulator: simulatorQuotes,
    allowDebug: true,
    // "Is this still my quote?", not "do I trust this TD?": relying parties apply their own policy.
    allowUnsafeTdAttributes: true,
    expectedReportData: agentReportData(record),
  });
  return result.valid && (result.root === 'simulator') === simulatorQuotes;
}

/**
 * The dstack key path of an agent. It carries a digest of the salt, not the salt, so the key depends on the
 * operator's secret while the secret itself never crosses the socket (dstack may log paths).
 */
function keyPathOf(salt: string, agentId: string): string {
  const saltDigest = createHash('sha256').update('parley/tee/salt/v1\0').update(salt).digest('hex');
  return `parley/agent/${agentId}/${saltDigest}`;
}

/** A UUID (version 8, RFC 9562) from a SHA-256 digest: stable for the same agent and key. */
function registrationIdOf(agentId: string, publicKey: string): string {
  const digest = createHash('sha256')
    .update(`parley/tee/registration/v1\0${agentId}\0${publicKey}`)
    .digest();
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Registers one agent in the TEE: derives its key from salt and agent id inside the TEE, then quotes the digest
 * of `{agentId, agentName, publicKey, createdAt}`. A stored registration with the same key and name whose quote
 * still verifies is reused as is (idempotent); a renamed agent keeps its `createdAt` and gets a fresh quote; a new key is a new
 * registration. Processes sharing one database converge on the first stored record.
 */
export async function registerAgent(
  context: RegisterAgentContext,
  agent: { agentId: string; name: string },
): Promise<TeeAgent> {
  const { guest, store, salt, clock } = context;
  const derived = await guest.getKey({
    path: keyPathOf(salt, agent.agentId),
    purpose: 'parley-agent',
  });
  const { publicKey, privateKey } = toEcdsaAccount(derived);
  context.keys?.set(agent.agentId, privateKey);
  const id = registrationIdOf(agent.agentId, publicKey);
  const stored = await store.get(agent.agentId);
  const sameKey = stored?.publicKey === publicKey && stored.id === id;
  const reusable =
    sameKey &&
    stored.agentName === agent.name &&
    stillVerifies(stored, context.simulatorQuotes ?? false);
  if (reusable) return stored;
  const binding = {
    agentId: agent.agentId,
    agentName: agent.name,
    publicKey,
    createdAt: sameKey ? stored.createdAt : clock(),
  };
  const { quote } = await guest.getQuote(agentReportData(binding));
  const record: TeeAgent = { id, ...binding, attestation: quoteToBase64(quote) };
  // Another process sharing the database may register the same agent at the same time: the store keeps
  // exactly one record, and every process answers with that one.
  const winner = stored ? await store.replace(record, stored) : await store.putIfAbsent(record);
  const agrees = winner.publicKey === publicKey && winner.agentName === agent.name;
  return agrees ? winner : record;
}
