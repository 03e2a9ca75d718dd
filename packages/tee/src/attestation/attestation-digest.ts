import type { TeeAgent } from '@parley/core';
import { sha256 } from '@noble/hashes/sha2.js';
import { canonicalJson } from './canonical-json';

/** Domain tag of one agent's registration digest. */
export const AGENT_ATTESTATION_DOMAIN = 'parley/tee/agent/v1';
/** Domain tag of the `GET /api/tee/agents` list digest. */
export const AGENTS_ATTESTATION_DOMAIN = 'parley/tee/agents/v1';

/** TDX report data is 64 bytes. */
export const REPORT_DATA_LENGTH = 64;

/** The fields of a registration that its attestation binds. */
export type AgentBinding = Pick<TeeAgent, 'agentId' | 'agentName' | 'publicKey' | 'createdAt'>;

/**
 * SHA-256 of `domain || 0x00 || canonicalJson(value)`. The tag keeps a digest of one kind from being replayed
 * as another (an agent record can never pass for a list); the NUL ends the tag so no tag is a prefix of another.
 */
export function attestationDigest(domain: string, value: unknown): Uint8Array {
  const encoder = new TextEncoder();
  const tag = encoder.encode(domain);
  const body = encoder.encode(canonicalJson(value));
  const message = new Uint8Array(tag.length + 1 + body.length);
  message.set(tag, 0);
  message.set(body, tag.length + 1);
  return sha256(message);
}

/** The 64-byte report data for a digest: the 32-byte digest, then 32 zero bytes. */
export function toReportData(digest: Uint8Array): Uint8Array {
  const reportData = new Uint8Array(REPORT_DATA_LENGTH);
  reportData.set(digest.subarray(0, REPORT_DATA_LENGTH), 0);
  return reportData;
}

/**
 * The report data an agent's registration quote carries: the digest of its `agentId`, `agentName`,
 * `publicKey` and `createdAt` under {@link AGENT_ATTESTATION_DOMAIN}. Server and verifier both call this.
 */
export function agentReportData(agent: AgentBinding): Uint8Array {
  const { agentId, agentName, publicKey, createdAt } = agent;
  return toReportData(
    attestationDigest(AGENT_ATTESTATION_DOMAIN, { agentId, agentName, publicKey, createdAt }),
  );
}

/**
 * The report data of the list's attestation: the digest of every agent record (attestations included, in list
 * order) and the caller's nonce under {@link AGENTS_ATTESTATION_DOMAIN}. An empty or absent nonce binds `null`,
 * so a fresh nonce proves the quote was made for this request.
 */
export function agentsReportData(agents: readonly TeeAgent[], nonce?: string): Uint8Array {
  const records = agents.map(({ id, agentId, agentName, createdAt, publicKey, attestation }) => ({
    id,
    agentId,
    agentName,
    createdAt,
    publicKey,
    attestation,
  }));
  return toReportData(
    attestationDigest(AGENTS_ATTESTATION_DOMAIN, { agents: records, nonce: nonce || null }),
  );
}
