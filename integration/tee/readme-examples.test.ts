import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseTeeConfig, type ParleyServer } from '@parley/server';
import {
  createTeeClient,
  parseDcapQvlCollateral,
  readDstackAppInfo,
  replayEventLog,
  verifyAgentsAttestation,
  verifyQuote,
} from '@parley/tee';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer } from '../support/start-server';

/** @parley/tee's README examples, run as written (the fixture paths are the package's). */
const teePackage = fileURLToPath(new URL('../../packages/tee/', import.meta.url));
const SIMULATOR_COMPOSE_HASH = 'b4736d863467d1efab64139292241c38355dbf86a766816f234435478419f8e0';
let server: ParleyServer;
let baseUrl: string;

beforeAll(async () => {
  ({ server, url: baseUrl } = await startServer({
    tee: parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: 'readme example salt' }),
  }));
});
afterAll(async () => {
  await server.stop();
});

it('verifies a real quote and its collateral offline, as the README shows', async () => {
  const quote = await readFile(`${teePackage}test/fixtures/tdx/dcap-qvl-tdx_quote.bin`);
  const collateral = parseDcapQvlCollateral(
    await readFile(
      `${teePackage}test/fixtures/tdx/collateral/dcap-qvl-tdx_quote_collateral.json`,
      'utf8',
    ),
  );
  const result = verifyQuote(quote, { collateral, now: new Date('2025-07-01T00:00:00Z') });
  expect(result.valid && result.tcb).toMatchObject({ status: 'UpToDate', advisoryIds: [] });
});

it("checks a local server's code through its event log, as the README shows", async () => {
  const nonce = crypto.randomUUID();
  const response = await createTeeClient({ baseUrl }).agents(nonce);
  const result = verifyAgentsAttestation(response, {
    nonce,
    allowSimulator: true,
    measurements: { eventLog: { composeHash: SIMULATOR_COMPOSE_HASH } },
  });
  expect(result.valid && result.eventLog?.app).toMatchObject({
    composeHash: SIMULATOR_COMPOSE_HASH,
  });

  const replay = replayEventLog(response.eventLog ?? []);
  expect(replay.valid).toBe(true);
  if (replay.valid) {
    const rtmr3Events = replay.events.filter((e) => e.imr === 3).map((event) => event.event);
    expect(rtmr3Events).toContain('compose-hash');
    expect(readDstackAppInfo(replay.events).composeHash).toBe(SIMULATOR_COMPOSE_HASH);
  }
});
