import { describe, expect, it } from 'vitest';
import { parseTdxQuote } from '../quote/parse-tdx-quote';
import { SIMULATOR_AGENTS_RESPONSE } from '../test-fixtures/simulator-agents-response';
import { readDstackAppInfo } from './dstack-app-info';
import { dstackEventDigest, replayEventLog } from './replay-event-log';

const eventLog = SIMULATOR_AGENTS_RESPONSE.eventLog!;
const rtmr3 = parseTdxQuote(SIMULATOR_AGENTS_RESPONSE.attestation).body.rtmr3;

describe('replayEventLog', () => {
  it("replays a dstack-style log to the quote's RTMR3 and shows each event's part", () => {
    const replay = replayEventLog(eventLog);
    expect(replay.valid).toBe(true);
    if (!replay.valid) return;
    expect(replay.rtmrs[3]).toBe(rtmr3);
    expect(replay.rtmrs[0]).toBe('0'.repeat(96));
    expect(replay.events.at(-1)!.registerAfter).toBe(rtmr3);
    expect(replay.events.map((event) => event.event)).toEqual([
      'system-preparing',
      'app-id',
      'compose-hash',
      'instance-id',
      'boot-mr-done',
      'key-provider',
      'system-ready',
    ]);
  });

  it("reads dstack's app id, compose hash and instance id", () => {
    const replay = replayEventLog(eventLog);
    if (!replay.valid) throw new Error(replay.message);
    const app = readDstackAppInfo(replay.events);
    expect(app.appId).toMatch(/^[0-9a-f]{40}$/);
    expect(app.composeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(app.instanceId).toMatch(/^[0-9a-f]{40}$/);
    expect(JSON.parse(app.keyProvider!)).toMatchObject({ name: 'parley-simulator' });
  });

  it("computes dstack's runtime event digest", () => {
    const appId = eventLog.find((event) => event.event === 'app-id')!;
    expect(dstackEventDigest('app-id', appId.event_payload)).toBe(appId.digest);
  });

  it('refuses a runtime event whose payload is not what its digest measured', () => {
    const forged = eventLog.map((event) =>
      event.event === 'compose-hash' ? { ...event, event_payload: 'ab'.repeat(32) } : event,
    );
    expect(replayEventLog(forged)).toMatchObject({
      valid: false,
      message: expect.stringContaining('compose-hash') as string,
    });
    expect(replayEventLog([{ ...eventLog[0]!, digest: 'zz' }])).toMatchObject({ valid: false });
    expect(replayEventLog([{ ...eventLog[0]!, imr: 4 }])).toMatchObject({ valid: false });
  });

  it('gives another RTMR3 for reordered or missing events', () => {
    const reordered = [eventLog[1]!, eventLog[0]!, ...eventLog.slice(2)];
    const shorter = eventLog.slice(0, -1);
    for (const log of [reordered, shorter]) {
      const replay = replayEventLog(log);
      expect(replay.valid && replay.rtmrs[3]).not.toBe(rtmr3);
    }
  });
});
