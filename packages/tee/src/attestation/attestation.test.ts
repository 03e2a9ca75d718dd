import { describe, expect, it } from 'vitest';
import {
  SIMULATOR_AGENTS_NONCE,
  SIMULATOR_AGENTS_RESPONSE,
} from '../test-fixtures/simulator-agents-response';
import {
  AGENT_ATTESTATION_DOMAIN,
  AGENTS_ATTESTATION_DOMAIN,
  agentReportData,
  agentsReportData,
  attestationDigest,
} from './attestation-digest';
import { canonicalJson } from './canonical-json';
import { verifyAgentAttestation, verifyAgentsAttestation } from './verify-agent-attestation';

const response = SIMULATOR_AGENTS_RESPONSE;
const agent = response.agents[0]!;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 'x', c: null }], e: undefined })).toBe(
      '{"a":[{"c":null,"d":"x"}],"b":1}',
    );
  });

  it('refuses values that would silently collide', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/non-finite/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function/);
  });
});

describe('attestation digests', () => {
  it('separate domains: the same value never gives the same digest under two tags', () => {
    const value = { agentId: 'a' };
    expect(hex(attestationDigest(AGENT_ATTESTATION_DOMAIN, value))).not.toBe(
      hex(attestationDigest(AGENTS_ATTESTATION_DOMAIN, value)),
    );
  });

  it('bind every field of a registration and nothing else', () => {
    const base = hex(agentReportData(agent));
    const other = { ...agent, attestation: 'other', id: 'other' };
    expect(hex(agentReportData(other))).toBe(base);
    for (const change of [
      { agentId: 'x' },
      { agentName: 'x' },
      { publicKey: 'x' },
      { createdAt: 1 },
    ]) {
      expect(hex(agentReportData({ ...agent, ...change }))).not.toBe(base);
    }
    expect(base.slice(64)).toBe('0'.repeat(64));
  });

  it('treat an empty nonce as no nonce, and any other nonce as different', () => {
    expect(hex(agentsReportData(response.agents, ''))).toBe(hex(agentsReportData(response.agents)));
    expect(hex(agentsReportData(response.agents, 'n'))).not.toBe(
      hex(agentsReportData(response.agents)),
    );
  });
});

describe('verifyAgentAttestation and verifyAgentsAttestation', () => {
  // Recorded before the simulator set SEPT_VE_DISABLE: its TD attributes are all zero.
  const simulator = { allowSimulator: true, allowUnsafeTdAttributes: true };

  it('accept the genuine response with its nonce', () => {
    expect(verifyAgentAttestation(agent, simulator)).toMatchObject({ valid: true });
    expect(
      verifyAgentsAttestation(response, { ...simulator, nonce: SIMULATOR_AGENTS_NONCE }),
    ).toMatchObject({ valid: true, root: 'simulator' });
  });

  it('reject a wrong agent, a wrong nonce, and the production policy', () => {
    expect(verifyAgentAttestation({ ...agent, agentId: 'someone-else' }, simulator)).toMatchObject({
      failure: 'REPORT_DATA',
    });
    expect(verifyAgentsAttestation(response, { ...simulator, nonce: 'replayed' })).toMatchObject({
      failure: 'REPORT_DATA',
    });
    expect(verifyAgentsAttestation(response, { nonce: SIMULATOR_AGENTS_NONCE })).toMatchObject({
      failure: 'UNTRUSTED_ROOT',
    });
  });

  it('says which part failed when the list itself does not match', () => {
    const shortened = { ...response, agents: [] };
    const result = verifyAgentsAttestation(shortened, {
      ...simulator,
      nonce: SIMULATOR_AGENTS_NONCE,
    });
    expect(result).toMatchObject({ valid: false, failure: 'REPORT_DATA' });
    expect(!result.valid && result.message).toMatch(/^list attestation: /);
  });
});
