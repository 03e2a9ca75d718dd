import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createServer, parseTeeConfig, type ParleyServer } from '@parley/server';
import {
  createTeeClient,
  type MeasurementPolicy,
  replayEventLog,
  verifyAgentAttestation,
  verifyAgentsAttestation,
} from '@parley/tee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SALT = 'integration-test-salt';
const characters = [{ name: 'Ada' }, { name: 'Bob' }];

/**
 * The reference values a relying party pins for Parley's simulator "image": its MRTD and RTMR0-2 are SHA-384
 * of fixed labels, and the compose hash is SHA-256 of its app-compose.json. (For real hardware these come from
 * the image build and the app's compose file.)
 */
const label = (text: string) =>
  createHash('sha384').update(`parley/dstack-simulator/${text}`).digest('hex');
const SIMULATOR_COMPOSE_HASH = 'b4736d863467d1efab64139292241c38355dbf86a766816f234435478419f8e0';
const policy: MeasurementPolicy = {
  mrTd: label('mrtd'),
  rtmr0: label('rtmr0'),
  rtmr1: label('rtmr1'),
  rtmr2: label('rtmr2'),
  mrConfigId: '00'.repeat(48),
  tdAttributes: { mask: '0100000000000000', value: '0000000000000000' },
  eventLog: { composeHash: SIMULATOR_COMPOSE_HASH },
};

/** A full server in TEE_MODE=LOCAL, checked the way a third party would check it. */
describe('a TEE server verified with @parley/tee', { timeout: 120_000 }, () => {
  let dataDir: string;
  let server: ParleyServer;

  const start = async () => {
    server = createServer({
      port: 0,
      logger: createLogger('silent'),
      characters,
      tee: parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: SALT }),
      database: { kind: 'pglite', dataDir },
    });
    return (await server.start()).url;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'parley-tee-'));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reports an active TEE and attests every agent and the whole list', async () => {
    const url = await start();
    const tee = createTeeClient({ baseUrl: url });
    expect(await tee.status()).toEqual({ status: 'active', tee_enabled: true, vendor: 'phala' });

    const nonce = 'fresh-nonce-1';
    const listed = await tee.agents(nonce);
    expect(listed.agents.map((agent) => agent.agentName)).toEqual(['Ada', 'Bob']);
    expect(verifyAgentsAttestation(listed, { nonce, allowSimulator: true }).valid).toBe(true);
    for (const agent of listed.agents) {
      expect(verifyAgentAttestation(agent, { allowSimulator: true }).valid).toBe(true);
    }
    // A simulator is not hardware: the production policy refuses it.
    expect(verifyAgentsAttestation(listed, { nonce }).valid).toBe(false);
    // An answer for another nonce is not an answer for this one.
    expect(verifyAgentsAttestation(listed, { nonce: 'other', allowSimulator: true }).valid).toBe(
      false,
    );
  });

  it('verifies agent, key, platform and code in one call: measurements and the event log replayed', async () => {
    const nonce = `policy-${Date.now()}`;
    const listed = await createTeeClient({ baseUrl: server.url }).agents(nonce);
    const result = verifyAgentsAttestation(listed, {
      nonce,
      allowSimulator: true,
      measurements: policy,
    });
    expect(result).toMatchObject({
      valid: true,
      eventLog: { app: { composeHash: SIMULATOR_COMPOSE_HASH } },
    });
    // The log the server served beside the quote shows which events produced RTMR3.
    const replay = replayEventLog(listed.eventLog ?? []);
    expect(replay.valid && replay.events.map((event) => event.event)).toEqual([
      'system-preparing',
      'app-id',
      'compose-hash',
      'instance-id',
      'boot-mr-done',
      'key-provider',
      'system-ready',
    ]);
    // Another app, another image, or a log that does not replay: refused.
    const otherApp = { ...policy, eventLog: { composeHash: 'ab'.repeat(32) } };
    expect(
      verifyAgentsAttestation(listed, { nonce, allowSimulator: true, measurements: otherApp }),
    ).toMatchObject({
      failure: 'EVENT_LOG',
    });
    const otherImage = { ...policy, mrTd: label('another image') };
    expect(
      verifyAgentsAttestation(listed, { nonce, allowSimulator: true, measurements: otherImage }),
    ).toMatchObject({
      failure: 'MEASUREMENT',
    });
    const truncated = { ...listed, eventLog: listed.eventLog?.slice(0, 3) };
    expect(
      verifyAgentsAttestation(truncated, { nonce, allowSimulator: true, measurements: policy }),
    ).toMatchObject({
      failure: 'EVENT_LOG',
    });
  });

  it('keeps each registration across a restart', async () => {
    const before = await createTeeClient({ baseUrl: server.url }).agents();
    await server.stop();
    const url = await start();
    const after = await createTeeClient({ baseUrl: url }).agents();
    expect(after.agents).toEqual(before.agents);
  });
});
