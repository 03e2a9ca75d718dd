import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TeeAgentsResponse, teeAgentsResponseSchema } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http/create-app';
import { startSimulatorServer } from './simulator/start-simulator-server';
import { createMemoryTeeAgentStore } from './tee-agent-store';
import { parseTeeConfig } from '../config/tee-settings';
import type { TeeConfig } from './tee-config';
import { createTeeService, type TeeServiceOptions } from './tee-service';
import { teeRoutes } from './tee-routes';
import { createCapturingLogger } from './test-support';

const SALT = 'correct horse battery staple';
const AGENTS = [
  { agentId: '0b0e4c35-3f43-5c5b-9a61-2c3ad0f6c0f1', name: 'Eliza' },
  { agentId: '6f1c2a4e-8d2b-5e0a-b7f3-4c9d1e2f3a4b', name: 'Ada' },
];

function setup(config: TeeConfig, extra: Partial<TeeServiceOptions> = {}) {
  const { logger, lines } = createCapturingLogger();
  const service = createTeeService({ config, logger, ...extra });
  const app = createHttpApp({ logger, bodyLimit: 1024 });
  app.route('/', teeRoutes(service));
  return { service, app, lines };
}

async function getJson(app: ReturnType<typeof setup>['app'], path: string) {
  const response = await app.request(path);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-tee-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('TEE_MODE=OFF', () => {
  it('reports disabled and an empty, unattested agent list', async () => {
    const { service, app } = setup(parseTeeConfig({}));
    expect(await service.register(AGENTS)).toEqual([]);
    expect(await getJson(app, '/api/tee/status')).toEqual({
      status: 200,
      body: { status: 'disabled', tee_enabled: false, vendor: 'phala' },
    });
    expect(await getJson(app, '/api/tee/agents')).toEqual({
      status: 200,
      body: { agents: [], attestation: '' },
    });
  });
});

describe('TEE_MODE=LOCAL with the built-in simulator', () => {
  const config = () => parseTeeConfig({ TEE_MODE: 'local', WALLET_SECRET_SALT: SALT });

  it('is active and lists every registered agent with a base64 quote', async () => {
    const { service, app } = setup(config(), { clock: () => 1_700_000_000_000 });
    await service.register(AGENTS);
    expect((await getJson(app, '/api/tee/status')).body).toEqual({
      status: 'active',
      tee_enabled: true,
      vendor: 'phala',
    });
    const { status, body } = await getJson(app, '/api/tee/agents');
    expect(status).toBe(200);
    const parsed = teeAgentsResponseSchema.parse(body);
    expect(parsed.agents.map((agent) => [agent.agentId, agent.agentName])).toEqual(
      AGENTS.map((agent) => [agent.agentId, agent.name]),
    );
    for (const agent of parsed.agents) {
      expect(agent.createdAt).toBe(1_700_000_000_000);
      expect(agent.publicKey).toMatch(/^0x04[0-9a-f]{128}$/);
      expect(agent.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(Buffer.from(agent.attestation, 'base64').readUInt16LE(0)).toBe(4);
    }
    expect(parsed.agents[0]!.publicKey).not.toBe(parsed.agents[1]!.publicKey);
    expect(Buffer.from(parsed.attestation, 'base64').length).toBeGreaterThan(1000);
  });

  it('registers idempotently: same records again, same id and key after a restart', async () => {
    const store = createMemoryTeeAgentStore();
    let now = 1_000;
    const first = setup(config(), { store, clock: () => now });
    const records = await first.service.register(AGENTS);
    now = 2_000;
    expect(await first.service.register(AGENTS)).toEqual(records);
    // A restart that keeps the store keeps everything, createdAt and quote included.
    const restarted = setup(config(), { store, clock: () => now });
    expect(await restarted.service.register(AGENTS)).toEqual(records);
    // A restart without a persistent store keeps the deterministic parts.
    const fresh = setup(config(), { clock: () => now });
    const again = await fresh.service.register(AGENTS);
    expect(again.map(({ id, publicKey }) => ({ id, publicKey }))).toEqual(
      records.map(({ id, publicKey }) => ({ id, publicKey })),
    );
    expect(again[0]!.createdAt).toBe(2_000);
  });

  it('gives other keys under another salt', async () => {
    const one = await setup(config()).service.register(AGENTS);
    const other = await setup(
      parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: 'another salt entirely' }),
    ).service.register(AGENTS);
    expect(other[0]!.publicKey).not.toBe(one[0]!.publicKey);
    expect(other[0]!.id).not.toBe(one[0]!.id);
  });

  it('re-attests a renamed agent and keeps its createdAt', async () => {
    let now = 10;
    const { service } = setup(config(), { clock: () => now });
    const [before] = await service.register([AGENTS[0]!]);
    now = 20;
    const [after] = await service.register([{ ...AGENTS[0]!, name: 'Eliza II' }]);
    expect(after).toMatchObject({ id: before!.id, createdAt: 10, agentName: 'Eliza II' });
    expect(after!.attestation).not.toBe(before!.attestation);
  });

  it('binds the nonce: different nonces give different list quotes, no nonce is cached', async () => {
    const { service, app } = setup(config());
    await service.register(AGENTS);
    const plain = (await getJson(app, '/api/tee/agents')).body as TeeAgentsResponse;
    const plainAgain = (await getJson(app, '/api/tee/agents')).body as TeeAgentsResponse;
    const a = (await getJson(app, '/api/tee/agents?nonce=abc')).body as TeeAgentsResponse;
    const b = (await getJson(app, '/api/tee/agents?nonce=abd')).body as TeeAgentsResponse;
    expect(plainAgain.attestation).toBe(plain.attestation);
    expect(new Set([plain.attestation, a.attestation, b.attestation]).size).toBe(3);
  });

  it('accepts a 128-character nonce and answers 400 in the envelope for 129', async () => {
    const { service, app } = setup(config());
    await service.register(AGENTS);
    expect((await app.request(`/api/tee/agents?nonce=${'n'.repeat(128)}`)).status).toBe(200);
    const tooLong = await getJson(app, `/api/tee/agents?nonce=${'n'.repeat(129)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
  });

  it('never logs the salt, whatever happens', async () => {
    const { service, app, lines } = setup(config());
    await service.register(AGENTS);
    await app.request('/api/tee/status');
    await app.request('/api/tee/agents?nonce=x');
    await app.request(`/api/tee/agents?nonce=${'n'.repeat(200)}`);
    await service.close();
    expect((await app.request('/api/tee/agents')).status).toBe(503);
    await expect(service.register(AGENTS)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line).not.toContain(SALT);
  });
});

describe('a simulator reached over a real unix socket', () => {
  it('is active and serves agents with the same keys as the in-process simulator', async () => {
    await using simulator = await startSimulatorServer({
      salt: SALT,
      socketPath: join(dir, 'dstack.sock'),
    });
    const config = parseTeeConfig({
      TEE_MODE: 'LOCAL',
      WALLET_SECRET_SALT: SALT,
      DSTACK_SIMULATOR_ENDPOINT: simulator.endpoint,
    });
    expect(config.endpoint).toBe(join(dir, 'dstack.sock'));
    const { service, app } = setup(config);
    const viaSocket = await service.register(AGENTS);
    expect((await getJson(app, '/api/tee/status')).body.status).toBe('active');
    const list = teeAgentsResponseSchema.parse((await getJson(app, '/api/tee/agents')).body);
    expect(list.agents).toEqual(viaSocket);
    const inProcess = await setup(
      parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: SALT }),
    ).service.register(AGENTS);
    expect(viaSocket.map((agent) => agent.publicKey)).toEqual(
      inProcess.map((agent) => agent.publicKey),
    );
  });

  it('turns unavailable when the simulator stops, and recovers pending agents when it is back', async () => {
    const socketPath = join(dir, 'dstack.sock');
    const config = parseTeeConfig({
      TEE_MODE: 'DOCKER',
      WALLET_SECRET_SALT: SALT,
      DSTACK_SIMULATOR_ENDPOINT: socketPath,
    });
    const { service, app, lines } = setup(config);
    expect(await service.register(AGENTS)).toEqual([]);
    expect((await getJson(app, '/api/tee/status')).body.status).toBe('unavailable');
    expect((await getJson(app, '/api/tee/agents')).status).toBe(503);
    await using _simulator = await startSimulatorServer({ salt: SALT, socketPath });
    expect((await getJson(app, '/api/tee/status')).body.status).toBe('active');
    const list = teeAgentsResponseSchema.parse((await getJson(app, '/api/tee/agents')).body);
    expect(list.agents).toHaveLength(2);
    expect(lines.some((line) => line.includes('TEE is unavailable'))).toBe(true);
    expect(lines.some((line) => line.includes('TEE is answering'))).toBe(true);
  });
});

describe('TEE_MODE=PRODUCTION without a dstack socket', () => {
  it('reports unavailable with a clear log line, answers 503 for agents, and never throws', async () => {
    const config = parseTeeConfig({ TEE_MODE: 'PRODUCTION', WALLET_SECRET_SALT: SALT });
    const { service, app, lines } = setup({ ...config, endpoint: join(dir, 'missing.sock') });
    await expect(service.register(AGENTS)).resolves.toEqual([]);
    expect(await getJson(app, '/api/tee/status')).toEqual({
      status: 200,
      body: { status: 'unavailable', tee_enabled: true, vendor: 'phala' },
    });
    const agents = await getJson(app, '/api/tee/agents');
    expect(agents.status).toBe(503);
    expect(agents.body).toMatchObject({ success: false, error: { code: 'UNAVAILABLE' } });
    const warning = lines.find((line) => line.includes('TEE is unavailable'));
    expect(warning).toContain('socket does not exist');
    expect(warning).toContain('missing.sock');
    for (const line of lines) expect(line).not.toContain(SALT);
  });
});
