import type { TeeAgentsResponse } from '@parley/core';
import {
  parseTdxQuote,
  replayEventLog,
  verifyAgentAttestation,
  verifyAgentsAttestation,
  verifyQuote,
} from '@parley/tee';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDstackSimulator } from './simulator/create-dstack-simulator';
import { createMemoryTeeAgentStore, type TeeAgentStore } from './tee-agent-store';
import { parseTeeConfig } from '../config/tee-settings';
import { createTeeService } from './tee-service';
import { createCapturingLogger } from './test-support';

// What a third party does against a running server: verify the server's answers with @parley/tee.
const SALT = 'verification test salt';
const NONCE = 'a3f1c2d4-nonce';
const config = parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: SALT });
let response: TeeAgentsResponse;

beforeAll(async () => {
  const service = createTeeService({ config, logger: createCapturingLogger().logger });
  await service.register([
    { agentId: 'agent-1', name: 'Eliza' },
    { agentId: 'agent-2', name: 'Ada' },
  ]);
  response = await service.listAgents(NONCE);
});

function flipByte(base64: string, offset: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[offset]! ^= 0x01;
  return bytes.toString('base64');
}

describe('verifying the server with @parley/tee', () => {
  it('accepts the genuine simulator response under the simulator policy', () => {
    const result = verifyAgentsAttestation(response, { nonce: NONCE, allowSimulator: true });
    expect(result).toMatchObject({ valid: true, root: 'simulator' });
  });

  it('serves the event log beside the list quote: it replays to RTMR3 and names the app', async () => {
    const replay = replayEventLog(response.eventLog ?? []);
    expect(replay).toMatchObject({ valid: true });
    if (!replay.valid) return;
    expect(replay.rtmrs[3]).toBe(parseTdxQuote(response.attestation).body.rtmr3);
    const info = await createDstackSimulator({ salt: SALT }).info();
    const composeHash = replay.events.find((event) => event.event === 'compose-hash')?.payload;
    expect(composeHash).toBe(info.compose_hash);
    const result = verifyAgentsAttestation(response, {
      nonce: NONCE,
      allowSimulator: true,
      measurements: { eventLog: { composeHash: info.compose_hash as string, appId: info.app_id } },
    });
    expect(result).toMatchObject({ valid: true, eventLog: { app: { appId: info.app_id } } });
  });

  it('puts the bound digest at bytes 568..632 of the quote', () => {
    const quote = Buffer.from(response.agents[0]!.attestation, 'base64');
    const parsed = parseTdxQuote(quote);
    expect(quote.subarray(568, 632).toString('hex')).toBe(parsed.body.reportData);
    expect(parsed.body.reportData.slice(64)).toBe('0'.repeat(64));
  });

  it('rejects a quote with one flipped report-data byte', () => {
    const agent = response.agents[0]!;
    const tampered = { ...agent, attestation: flipByte(agent.attestation, 570) };
    expect(verifyAgentAttestation(tampered, { allowSimulator: true })).toMatchObject({
      valid: false,
      failure: 'QUOTE_SIGNATURE',
    });
  });

  it('rejects another agent presented with a genuine quote', () => {
    const [first, second] = response.agents;
    const impostor = { ...second!, attestation: first!.attestation };
    expect(verifyAgentAttestation(impostor, { allowSimulator: true })).toMatchObject({
      valid: false,
      failure: 'REPORT_DATA',
    });
    const renamed = { ...first!, agentName: 'Mallory' };
    expect(verifyAgentAttestation(renamed, { allowSimulator: true })).toMatchObject({
      valid: false,
      failure: 'REPORT_DATA',
    });
  });

  it('rejects the list under another nonce, without a nonce, or with an agent removed', () => {
    const policy = { allowSimulator: true };
    expect(verifyAgentsAttestation(response, { ...policy, nonce: 'other' })).toMatchObject({
      valid: false,
      failure: 'REPORT_DATA',
    });
    expect(verifyAgentsAttestation(response, policy)).toMatchObject({
      valid: false,
      failure: 'REPORT_DATA',
    });
    const shortened = { ...response, agents: response.agents.slice(1) };
    expect(verifyAgentsAttestation(shortened, { ...policy, nonce: NONCE })).toMatchObject({
      valid: false,
      failure: 'REPORT_DATA',
    });
  });

  it('rejects every simulator quote under the production policy', () => {
    expect(verifyAgentsAttestation(response, { nonce: NONCE })).toMatchObject({
      valid: false,
      failure: 'UNTRUSTED_ROOT',
    });
  });

  it('rejects a debug TD unless the policy allows debug', async () => {
    const debugGuest = createDstackSimulator({ salt: SALT, debug: true });
    const quote = Buffer.from((await debugGuest.getQuote(new Uint8Array(64))).quote, 'hex');
    expect(parseTdxQuote(quote).debug).toBe(true);
    expect(verifyQuote(quote, { allowSimulator: true })).toMatchObject({
      valid: false,
      failure: 'DEBUG_TD',
    });
    expect(verifyQuote(quote, { allowSimulator: true, allowDebug: true })).toMatchObject({
      valid: true,
    });
  });

  it('names the agent whose own attestation is wrong inside a genuinely attested list', async () => {
    // A corrupted store hands back a record whose quote belongs to another agent; the list still binds it.
    const [first, second] = response.agents;
    const corrupted = { ...second!, attestation: first!.attestation };
    const store: TeeAgentStore = {
      get: () => Promise.resolve(corrupted),
      putIfAbsent: () => Promise.resolve(corrupted),
      replace: () => Promise.resolve(corrupted),
    };
    const service = createTeeService({ config, logger: createCapturingLogger().logger, store });
    await service.register([{ agentId: second!.agentId, name: second!.agentName }]);
    const list = await service.listAgents(NONCE);
    const result = verifyAgentsAttestation(list, { nonce: NONCE, allowSimulator: true });
    expect(result).toMatchObject({ valid: false, failure: 'REPORT_DATA' });
    expect(!result.valid && result.message).toMatch(/^agent agent-2: /);
  });

  it('quotes a stored registration afresh when its quote no longer verifies, keeping createdAt', async () => {
    const [first, second] = response.agents;
    const store = createMemoryTeeAgentStore();
    await store.putIfAbsent({ ...second!, attestation: first!.attestation });
    const service = createTeeService({ config, logger: createCapturingLogger().logger, store });
    const [repaired] = await service.register([
      { agentId: second!.agentId, name: second!.agentName },
    ]);
    expect(repaired).toMatchObject({ createdAt: second!.createdAt, publicKey: second!.publicKey });
    expect(repaired!.attestation).not.toBe(first!.attestation);
    expect(verifyAgentAttestation(repaired!, { allowSimulator: true })).toMatchObject({
      valid: true,
    });
    expect(await store.get(second!.agentId)).toEqual(repaired);
  });

  it('rejects a quote whose certificates have expired', () => {
    const agent = response.agents[0]!;
    expect(
      verifyAgentAttestation(agent, { allowSimulator: true, now: Date.UTC(2050, 0, 1) }),
    ).toMatchObject({
      valid: false,
      failure: 'CERTIFICATE_CHAIN',
    });
  });
});
