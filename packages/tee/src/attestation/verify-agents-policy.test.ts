import { describe, expect, it } from 'vitest';
import { parseTdxQuote } from '../quote/parse-tdx-quote';
import {
  SIMULATOR_AGENTS_NONCE,
  SIMULATOR_AGENTS_RESPONSE,
} from '../test-fixtures/simulator-agents-response';
import { verifyAgentsAttestation } from './verify-agent-attestation';

const response = SIMULATOR_AGENTS_RESPONSE;
const body = parseTdxQuote(response.attestation).body;
const composeHash = response.eventLog!.find(
  (event) => event.event === 'compose-hash',
)!.event_payload;
// Recorded before the simulator set SEPT_VE_DISABLE: its TD attributes are all zero.
const base = { allowSimulator: true, allowUnsafeTdAttributes: true, nonce: SIMULATOR_AGENTS_NONCE };
const expected = {
  mrTd: body.mrTd,
  rtmr0: body.rtmr0,
  rtmr1: [body.rtmr1, 'ff'.repeat(48)],
  rtmr2: `0x${body.rtmr2.toUpperCase()}`,
  mrConfigId: body.mrConfigId,
  tdAttributes: { mask: '0100000000000000', value: '0000000000000000' },
  xfam: body.xfam,
};

describe('verifyAgentsAttestation with a measurement policy', () => {
  it('verifies agent, key, platform and code in one call, and shows the app', () => {
    const result = verifyAgentsAttestation(response, {
      ...base,
      measurements: { ...expected, eventLog: { composeHash } },
    });
    expect(result).toMatchObject({ valid: true, eventLog: { app: { composeHash } } });
    if (result.valid)
      expect(result.eventLog!.events.map((event) => event.event)).toContain('app-id');
  });

  it('refuses another image, another app, or a policy the TD breaks', () => {
    expect(
      verifyAgentsAttestation(response, { ...base, measurements: { mrTd: '00'.repeat(48) } }),
    ).toMatchObject({
      failure: 'MEASUREMENT',
      message: expect.stringMatching(/^list attestation: mrTd/) as string,
    });
    expect(
      verifyAgentsAttestation(response, {
        ...base,
        measurements: { eventLog: { composeHash: 'ab'.repeat(32) } },
      }),
    ).toMatchObject({ failure: 'EVENT_LOG' });
    expect(
      verifyAgentsAttestation(response, {
        ...base,
        measurements: { tdAttributes: { mask: '0100000000000000', value: '0100000000000000' } },
      }),
    ).toMatchObject({ failure: 'MEASUREMENT' });
  });

  it('needs the event log when the policy asks for the app, and it must replay to RTMR3', () => {
    const { eventLog, ...withoutLog } = response;
    const measurements = { eventLog: {} };
    expect(verifyAgentsAttestation(withoutLog, { ...base, measurements })).toMatchObject({
      failure: 'EVENT_LOG',
    });
    const shortened = { ...response, eventLog: eventLog!.slice(0, -1) };
    expect(verifyAgentsAttestation(shortened, { ...base, measurements })).toMatchObject({
      failure: 'EVENT_LOG',
      message: expect.stringContaining('RTMR3') as string,
    });
  });
});
