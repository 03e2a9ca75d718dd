import './node-buffer';
import type { TeeAgent, TeeAgentsResponse } from '@parley/core';
import { agentReportData, agentsReportData, parseTdxQuote } from '@parley/tee';

/** The outcome of a binding check in the browser. */
export type BindingCheck = { bound: true } | { bound: false; reason: string };

const toHex = (bytes: Uint8Array) =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

function compare(quote: string, expected: Uint8Array): BindingCheck {
  try {
    const actual = parseTdxQuote(quote).body.reportData.toLowerCase();
    return actual === toHex(expected)
      ? { bound: true }
      : { bound: false, reason: 'the quote binds other data' };
  } catch (error) {
    return { bound: false, reason: error instanceof Error ? error.message : 'unreadable quote' };
  }
}

/**
 * Whether an agent's quote binds exactly this record (`agentId`, `agentName`, `publicKey`, `createdAt`), checked
 * with `@parley/tee` in the browser. The quote's signature and certificate chain need node:crypto's X.509
 * support and are verified server-side or with the `@parley/tee` verifier in Node, not here.
 */
export function checkAgentBinding(agent: TeeAgent): BindingCheck {
  return compare(agent.attestation, agentReportData(agent));
}

/** Whether the list quote binds the whole list and the nonce this page sent (no replayed answer). */
export function checkListBinding(response: TeeAgentsResponse, nonce: string): BindingCheck {
  return compare(response.attestation, agentsReportData(response.agents, nonce));
}
