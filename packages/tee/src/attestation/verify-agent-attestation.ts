import type { TeeAgent, TeeAgentsResponse } from '@parley/core';
import {
  failed,
  type QuoteVerification,
  type VerifyQuoteOptions,
} from '../quote/quote-verification';
import { verifyQuote } from '../quote/verify-quote';
import { agentReportData, agentsReportData } from './attestation-digest';

/** Policy of the agent checks: the quote policy without `expectedReportData`, which they compute. */
export type VerifyAttestationOptions = Omit<VerifyQuoteOptions, 'expectedReportData'>;

/**
 * Verifies one registration: its quote is genuine under the policy and binds exactly this record's `agentId`,
 * `agentName`, `publicKey` and `createdAt`.
 *
 * @example
 * const result = verifyAgentAttestation(agent);
 * if (result.valid) trustKey(agent.publicKey);
 */
export function verifyAgentAttestation(
  agent: TeeAgent,
  options: VerifyAttestationOptions = {},
): QuoteVerification {
  return verifyQuote(agent.attestation, { ...options, expectedReportData: agentReportData(agent) });
}

/** Options of {@link verifyAgentsAttestation}. */
export interface VerifyAgentsOptions extends VerifyAttestationOptions {
  /** The nonce sent as `?nonce=`; without it a replayed old response would verify. */
  nonce?: string;
}

/**
 * Verifies a whole `GET /api/tee/agents` response: the list attestation binds every record and the nonce, and
 * every agent's own attestation is valid. The first failure is returned, its message naming the agent.
 *
 * @example
 * const nonce = crypto.randomUUID();
 * const result = verifyAgentsAttestation(await tee.agents(nonce), { nonce });
 */
export function verifyAgentsAttestation(
  response: TeeAgentsResponse,
  options: VerifyAgentsOptions = {},
): QuoteVerification {
  const { nonce, ...policy } = options;
  const list = verifyQuote(response.attestation, {
    ...policy,
    expectedReportData: agentsReportData(response.agents, nonce),
  });
  if (!list.valid) return failed(list.failure, `list attestation: ${list.message}`);
  for (const agent of response.agents) {
    const result = verifyAgentAttestation(agent, policy);
    if (!result.valid) return failed(result.failure, `agent ${agent.agentId}: ${result.message}`);
  }
  return list;
}
