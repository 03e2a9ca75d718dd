import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createServer, type ParleyServer } from '@parley/server';
import { createTeeClient, verifyAgentAttestation, verifyAgentsAttestation } from '@parley/tee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SALT = 'integration-test-salt';
const characters = [{ name: 'Ada' }, { name: 'Bob' }];

/** A full server in TEE_MODE=LOCAL, checked the way a third party would check it. */
describe('a TEE server verified with @parley/tee', () => {
  let dataDir: string;
  let server: ParleyServer;

  const start = async () => {
    server = createServer({
      port: 0,
      logger: createLogger('silent'),
      characters,
      env: { TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: SALT },
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

  it('keeps each registration across a restart', async () => {
    const before = await createTeeClient({ baseUrl: server.url }).agents();
    await server.stop();
    const url = await start();
    const after = await createTeeClient({ baseUrl: url }).agents();
    expect(after.agents).toEqual(before.agents);
  });
});
