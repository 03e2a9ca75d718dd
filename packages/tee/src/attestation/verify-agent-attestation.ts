import type { TeeAgent, TeeAgentsResponse } from '@parley/core';
import { replayEventLog } from '../event-log/replay-event-log';
import type { MeasurementPolicy } from '../policy/measurement-policy';
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
  let expectedReportData: Uint8Array;
  try {
    expectedReportData = agentReportData(agent);
  } catch (error) {
    return failed('FORMAT', `the agent record is malformed: ${(error as Error).message}`);
  }
  return verifyQuote(agent.attestation, { ...options, expectedReportData });
}

/** Options of {@link verifyAgentsAttestation}. */
export interface VerifyAgentsOptions extends Omit<VerifyAttestationOptions, 'eventLog'> {
  /** The nonce sent as `?nonce=`; without it a replayed old response would verify. */
  nonce?: string;
  /** Expected code: applied to every quote; `eventLog` rules use the response's event log. */
  measurements?: MeasurementPolicy;
}

/**
 * The RTMR3 values an agent quote may carry: the register after each prefix of the RTMR3 events (the register
 * only grows, so a registration quoted earlier saw a prefix of today's log).
 */
function rtmr3Prefixes(response: TeeAgentsResponse): Set<string> | undefined {
  const replay = response.eventLog && replayEventLog(response.eventLog);
  if (!replay?.valid) return undefined;
  const values = replay.events
    .filter((event) => event.imr === 3)
    .map((event) => event.registerAfter);
  return new Set(['0'.repeat(96), ...values]);
}

/**
 * Verifies a whole `GET /api/tee/agents` response: the list attestation binds every record and the nonce,
 * every agent's own attestation is valid, and with `measurements` every quote runs the expected code. With
 * `measurements.eventLog` the list quote's RTMR3 must be the replay of the response's event log (naming the
 * expected app), and each agent quote's RTMR3 a point in that same replay. The first failure is returned,
 * its message naming the agent.
 *
 * @example
 * const nonce = crypto.randomUUID();
 * const result = verifyAgentsAttestation(await tee.agents(nonce), {
 *   nonce,
 *   collateral,
 *   measurements: { mrTd: EXPECTED_MRTD, eventLog: { composeHash: EXPECTED_COMPOSE_HASH } },
 * });
 */
export function verifyAgentsAttestation(
  response: TeeAgentsResponse,
  options: VerifyAgentsOptions = {},
): QuoteVerification {
  try {
    return verifyAgentsOrThrow(response, options);
  } catch (error) {
    return failed('FORMAT', `the response is malformed: ${(error as Error).message}`);
  }
}

function verifyAgentsOrThrow(
  response: TeeAgentsResponse,
  options: VerifyAgentsOptions,
): QuoteVerification {
  const { nonce, measurements, ...policy } = options;
  const list = verifyQuote(response.attestation, {
    ...policy,
    ...(measurements && { measurements }),
    ...(response.eventLog && { eventLog: response.eventLog }),
    expectedReportData: agentsReportData(response.agents, nonce),
  });
  if (!list.valid) return failed(list.failure, `list attestation: ${list.message}`, list.tcb);
  const { eventLog: eventLogRule, rtmr3, ...staticRules } = measurements ?? {};
  const prefixes = eventLogRule ? rtmr3Prefixes(response) : undefined;
  for (const agent of response.agents) {
    const result = verifyAgentAttestation(agent, {
      ...policy,
      measurements: { ...staticRules, ...(rtmr3 !== undefined && { rtmr3 }) },
    });
    if (!result.valid) {
      return failed(result.failure, `agent ${agent.agentId}: ${result.message}`, result.tcb);
    }
    if (prefixes && !prefixes.has(result.quote.body.rtmr3)) {
      return failed(
        'EVENT_LOG',
        `agent ${agent.agentId}: its RTMR3 is not a point of the event log`,
      );
    }
  }
  return list;
}
