import { describe, expect, it } from 'vitest';
import { parseTdxQuote } from '../quote/parse-tdx-quote';
import { verifyQuote } from '../quote/verify-quote';
import { buildTestQuote } from '../test-fixtures/build-test-quote';
import { DSTACK } from '../test-fixtures/dstack-fixtures';
import { useTestPki } from '../test-fixtures/use-test-pki';
import { readDstackAppInfo } from './dstack-app-info';
import { dstackEventDigest, dstackEventPreimage, replayEventLog } from './replay-event-log';
import { DSTACK_RUNTIME_EVENT_TYPE, type TeeEvent } from './tee-event';

// Real dstack GetQuote responses (dstack's verifier fixtures): a genuine quote and the log that produced RTMR3.
// Inside both quotes' PCK certificate validity (the dstack 0.6 leaf is issued 2026-04-15).
const NOW = Date.UTC(2026, 5, 1);
const older = DSTACK.quoteReport;
const lite = DSTACK.lite06;
const appOf = (log: readonly TeeEvent[]) => {
  const replay = replayEventLog(log);
  if (!replay.valid) throw new Error(replay.message);
  return readDstackAppInfo(replay.events);
};
const runtime = (log: readonly TeeEvent[], name: string) =>
  log.find((event) => event.event === name && event.event_type === DSTACK_RUNTIME_EVENT_TYPE)!;
const verifyApp = (
  fixture: typeof older,
  eventLog: readonly TeeEvent[],
  app: { composeHash?: string; appId?: string },
) => verifyQuote(fixture.quote, { now: NOW, eventLog, measurements: { eventLog: app } });

describe('dstack app identity from a real event log', () => {
  it('verifies the genuine app of an older dstack (digests logged) and of dstack 0.6 (digests empty)', () => {
    for (const fixture of [older, lite]) {
      const app = appOf(fixture.eventLog);
      const composeHash = runtime(fixture.eventLog, 'compose-hash').event_payload;
      const appId = runtime(fixture.eventLog, 'app-id').event_payload;
      expect(app).toMatchObject({ composeHash, appId });
      expect(verifyApp(fixture, fixture.eventLog, { composeHash, appId })).toMatchObject({
        valid: true,
        eventLog: { app: { composeHash, appId } },
      });
    }
    expect(runtime(lite.eventLog, 'compose-hash').digest).toBe('');
    expect(appOf(lite.eventLog).osImageHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a forged compose hash or app id carried by an event of another type (critical)', () => {
    const forged = 'ab'.repeat(32);
    for (const name of ['compose-hash', 'app-id']) {
      // The attack: retype the event, put any payload in it, keep its digest. RTMR3 still replays.
      const log = older.eventLog.map((event) =>
        event.event === name ? { ...event, event_type: 1, event_payload: forged } : event,
      );
      const replay = replayEventLog(log);
      expect(replay.valid && replay.rtmrs[3]).toBe(parseTdxQuote(older.quote).body.rtmr3);
      const key = name === 'app-id' ? 'appId' : 'composeHash';
      expect(appOf(log)[key]).toBeUndefined();
      expect(verifyApp(older, log, { [key]: forged })).toMatchObject({
        valid: false,
        failure: 'EVENT_LOG',
      });
    }
  });

  it('refuses a dstack 0.6 log whose empty-digest payload was changed', () => {
    const log = lite.eventLog.map((event) =>
      event.event === 'compose-hash' ? { ...event, event_payload: 'ab'.repeat(32) } : event,
    );
    expect(verifyApp(lite, log, { composeHash: 'ab'.repeat(32) })).toMatchObject({
      valid: false,
      failure: 'EVENT_LOG',
      message: "the event log does not replay to the quote's RTMR3",
    });
  });

  it('takes app facts only from events before system-ready (later ones are the app’s own)', () => {
    const late: TeeEvent = {
      imr: 3,
      event_type: DSTACK_RUNTIME_EVENT_TYPE,
      event: 'compose-hash',
      event_payload: 'cd'.repeat(32),
      digest: dstackEventDigest('compose-hash', 'cd'.repeat(32)),
    };
    const genuine = runtime(older.eventLog, 'compose-hash').event_payload;
    expect(appOf([...older.eventLog, late]).composeHash).toBe(genuine);
    const withoutSystem = older.eventLog.filter((event) => event.event !== 'compose-hash');
    expect(appOf([...withoutSystem, late]).composeHash).toBeUndefined();
  });
});

describe("dstack's V2 runtime event digests", () => {
  it("computes dstack's canonical JSON preimage (dstack's own test vectors)", () => {
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    expect(text(dstackEventPreimage('compose-hash', 'abcd', 2))).toBe(
      '{"name":"compose-hash","payload":"abcd","type":134217729}',
    );
    expect(text(dstackEventPreimage('event"with\\special\nchars', 'FF', 2))).toBe(
      '{"name":"event\\"with\\\\special\\nchars","payload":"ff","type":134217729}',
    );
    expect(text(dstackEventPreimage('\b\f\n\r\t\u0001', '', 2))).toContain(
      '"name":"\\b\\f\\n\\r\\t\\u0001"',
    );
    expect(dstackEventDigest('test', '010203', 2)).not.toBe(dstackEventDigest('test', '010203', 1));
  });

  const pki = useTestPki();

  // dstack 0.6's runtime events re-emitted as V2 (version 2, digest and preimage given, or the digest left empty).
  const v2Log = (withDigest: boolean): TeeEvent[] =>
    lite.eventLog.map((event) => {
      if (event.event_type !== DSTACK_RUNTIME_EVENT_TYPE) return event;
      const preimage = Buffer.from(dstackEventPreimage(event.event, event.event_payload, 2));
      return {
        ...event,
        version: 2,
        digest: withDigest ? dstackEventDigest(event.event, event.event_payload, 2) : '',
        ...(withDigest && { preimage: preimage.toString('hex') }),
      };
    });

  it('replays a V2 log to the quote and yields the app identity', () => {
    for (const log of [v2Log(true), v2Log(false)]) {
      const replay = replayEventLog(log);
      if (!replay.valid) throw new Error(replay.message);
      const quote = buildTestQuote({
        pckKey: pki.pckKey,
        chain: [pki.pckPem, pki.caPem],
        body: { rtmr3: replay.rtmrs[3], tdAttributes: '0000001000000000' },
      });
      const composeHash = runtime(lite.eventLog, 'compose-hash').event_payload;
      expect(
        verifyQuote(quote, {
          extraRoots: [pki.rootPem],
          eventLog: log,
          measurements: { eventLog: { composeHash } },
        }),
      ).toMatchObject({ valid: true, eventLog: { app: { composeHash } } });
      expect(replay.events.find((event) => event.event === 'compose-hash')).toMatchObject({
        version: 2,
        payloadVerified: true,
      });
    }
  });

  it('refuses a V2 event whose preimage or digest is not its own, or an unknown version', () => {
    const log = v2Log(true);
    const at = log.findIndex((event) => event.event === 'compose-hash');
    const change = (patch: Partial<TeeEvent> & Record<string, unknown>) =>
      log.map((event, index) => (index === at ? { ...event, ...patch } : event));
    const otherPreimage = Buffer.from(dstackEventPreimage('compose-hash', 'ab'.repeat(32), 2));
    expect(replayEventLog(change({ preimage: otherPreimage.toString('hex') }))).toMatchObject({
      valid: false,
      message: expect.stringContaining('preimage') as string,
    });
    expect(
      replayEventLog(change({ digest: dstackEventDigest('compose-hash', 'ab'.repeat(32), 2) })),
    ).toMatchObject({ valid: false });
    expect(replayEventLog(change({ version: 3 }))).toMatchObject({
      valid: false,
      message: expect.stringContaining('version') as string,
    });
    // A V1 digest on an event that says V2 is not its digest.
    const v1 = dstackEventDigest('compose-hash', log[at]!.event_payload, 1);
    expect(replayEventLog(change({ digest: v1, preimage: undefined }))).toMatchObject({
      valid: false,
    });
  });
});

describe('replayEventLog on hostile input', () => {
  it('returns invalid, never throws, for malformed logs', () => {
    const bad: unknown[] = [
      null,
      'log',
      [null],
      [42],
      [{}],
      [
        {
          imr: 3,
          event_type: DSTACK_RUNTIME_EVENT_TYPE,
          event: 'x',
          digest: '',
          event_payload: 'zz',
        },
      ],
      [{ imr: 0, event_type: 1, event: 'x', digest: '', event_payload: '' }],
      [{ imr: 3, event_type: DSTACK_RUNTIME_EVENT_TYPE, event: 5, digest: '', event_payload: '' }],
      [{ imr: 3, event_type: DSTACK_RUNTIME_EVENT_TYPE, event: 'x', digest: 7, event_payload: '' }],
      [
        {
          imr: 3,
          event_type: DSTACK_RUNTIME_EVENT_TYPE,
          event: 'x',
          digest: '',
          event_payload: '',
          preimage: 1,
        },
      ],
    ];
    for (const log of bad) {
      expect(replayEventLog(log as TeeEvent[])).toMatchObject({ valid: false });
    }
  });
});
