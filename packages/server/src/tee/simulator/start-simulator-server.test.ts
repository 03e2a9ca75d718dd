import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTdxQuote, replayEventLog, verifyQuote } from '@parley/tee';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDstackClient } from '../dstack/create-dstack-client';
import { startSimulatorServer } from './start-simulator-server';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-sim-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the simulator served over a unix socket', () => {
  it('derives keys deterministically per salt and path', async () => {
    await using one = await startSimulatorServer({
      salt: 'salt number one',
      socketPath: join(dir, 'a.sock'),
    });
    await using same = await startSimulatorServer({
      salt: 'salt number one',
      socketPath: join(dir, 'b.sock'),
    });
    await using other = await startSimulatorServer({
      salt: 'salt number two',
      socketPath: join(dir, 'c.sock'),
    });
    const key = (endpoint: string, path: string) =>
      createDstackClient({ endpoint })
        .getKey({ path })
        .then(({ key }) => key);
    const first = await key(one.endpoint, 'wallet/eth');
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await key(same.endpoint, 'wallet/eth')).toBe(first);
    expect(await key(one.endpoint, 'wallet/sol')).not.toBe(first);
    expect(await key(other.endpoint, 'wallet/eth')).not.toBe(first);
  });

  it('issues verifiable quotes carrying the report data, and an info whose RTMR3 replays its event log', async () => {
    await using simulator = await startSimulatorServer({
      salt: 'salt number one',
      socketPath: join(dir, 'a.sock'),
    });
    const client = createDstackClient({ endpoint: simulator.endpoint });
    const reportData = new Uint8Array(64).fill(7);
    const { quote, event_log } = await client.getQuote(reportData);
    expect(
      verifyQuote(Buffer.from(quote, 'hex'), {
        allowSimulator: true,
        expectedReportData: reportData,
      }),
    ).toMatchObject({
      valid: true,
    });
    const info = await client.info();
    const tcb = JSON.parse(info.tcb_info) as { rtmr3: string; event_log: unknown };
    expect(tcb.rtmr3).toBe(parseTdxQuote(Buffer.from(quote, 'hex')).body.rtmr3);
    expect(tcb.event_log).toEqual(JSON.parse(event_log));
  });

  it('issues v5 quotes when asked, with an event log that replays to their RTMR3', async () => {
    await using simulator = await startSimulatorServer({
      salt: 'salt number two',
      quoteVersion: 5,
    });
    const client = createDstackClient({ endpoint: simulator.endpoint });
    const { quote, event_log } = await client.getQuote(new Uint8Array(64));
    const bytes = Buffer.from(quote, 'hex');
    expect(verifyQuote(bytes, { allowSimulator: true })).toMatchObject({ valid: true });
    const parsed = parseTdxQuote(bytes);
    expect([parsed.header.version, parsed.bodyType]).toEqual([5, 3]);
    const replay = replayEventLog(JSON.parse(event_log) as Parameters<typeof replayEventLog>[0]);
    expect(replay.valid && replay.rtmrs[3]).toBe(parsed.body.rtmr3);
  });

  it('answers bad requests with 4xx and an error, as dstack does', async () => {
    await using simulator = await startSimulatorServer({ salt: 'salt number one' });
    const post = (path: string, body: string) =>
      fetch(`${simulator.endpoint}${path}`, { method: 'POST', body }).then(async (response) => ({
        status: response.status,
        body: await response.json(),
      }));
    expect(await post('/GetQuote', '{"report_data":"zz"}')).toMatchObject({ status: 400 });
    expect(await post('/GetKey', '{"path":"p","algorithm":"rsa"}')).toMatchObject({
      status: 400,
      body: { error: 'Unsupported key algorithm "rsa"' },
    });
    expect(await post('/Nope', '{}')).toMatchObject({ status: 404 });
    expect((await post('/prpc/Info', '{}')).status).toBe(200);
  });
});
