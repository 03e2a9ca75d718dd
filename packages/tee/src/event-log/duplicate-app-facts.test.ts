import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../quote/verify-quote';
import { buildTestQuote } from '../test-fixtures/build-test-quote';
import { DSTACK } from '../test-fixtures/dstack-fixtures';
import { useTestPki } from '../test-fixtures/use-test-pki';
import { DSTACK_APP_FACT_EVENTS, readDstackAppInfo } from './dstack-app-info';
import { replayEventLog } from './replay-event-log';
import { DSTACK_RUNTIME_EVENT_TYPE, type TeeEvent } from './tee-event';

// dstack 0.6's real event log (every app fact once: app-id, compose-hash, instance-id, os-image-hash,
// key-provider, then system-ready). dstack's own verifier reads the last event of a name, an earlier Parley
// the first: a TD that logs a fact twice names two apps at once. Each log here is quoted by a private PKI
// with the RTMR3 it replays to, as a TD that really extended those events would be.
const lite = DSTACK.lite06.eventLog;
const pki = useTestPki();
const payloadOf = (name: string) => lite.find((event) => event.event === name)!.event_payload;
const genuine = payloadOf('compose-hash');
const other = 'cd'.repeat(32);

/** The real log with a runtime event `name` (`payload`) added just before `system-ready`. */
function withEvent(log: readonly TeeEvent[], name: string, payload: string): TeeEvent[] {
  const at = log.findIndex((event) => event.event === 'system-ready');
  const added = {
    imr: 3,
    event_type: DSTACK_RUNTIME_EVENT_TYPE,
    event: name,
    event_payload: payload,
    digest: '',
  };
  return [...log.slice(0, at), added, ...log.slice(at)];
}

function verifyLog(log: readonly TeeEvent[], app: { composeHash?: string }) {
  const replay = replayEventLog(log);
  if (!replay.valid) throw new Error(replay.message);
  const quote = buildTestQuote({
    pckKey: pki.pckKey,
    chain: [pki.pckPem, pki.caPem],
    body: { rtmr3: replay.rtmrs[3] },
  });
  return verifyQuote(quote, {
    extraRoots: [pki.rootPem],
    eventLog: log,
    measurements: { eventLog: app },
  });
}

describe('an app fact logged twice before system-ready', () => {
  it('accepts the genuine log (every fact once)', () => {
    expect(verifyLog(lite, { composeHash: genuine })).toMatchObject({
      valid: true,
      eventLog: { app: { composeHash: genuine, duplicates: [] } },
    });
  });

  it('refuses two compose-hash events with EVENT_LOG_DUPLICATE, whichever of them the policy expects', () => {
    const log = withEvent(lite, 'compose-hash', other);
    // Before: the first (genuine) one was read and this log verified, while dstack reads the second.
    for (const composeHash of [genuine, other]) {
      expect(verifyLog(log, { composeHash })).toMatchObject({
        valid: false,
        failure: 'EVENT_LOG_DUPLICATE',
        message: 'the event log names compose-hash more than once before system-ready',
      });
    }
  });

  it.each(DSTACK_APP_FACT_EVENTS)(
    'refuses a second %s event, even with the same payload and a policy that pins only the compose hash',
    (name) => {
      for (const payload of [payloadOf(name), other]) {
        expect(verifyLog(withEvent(lite, name, payload), { composeHash: genuine })).toMatchObject({
          failure: 'EVENT_LOG_DUPLICATE',
        });
      }
    },
  );

  it('reads no value for a duplicated fact, and names it', () => {
    const replay = replayEventLog(withEvent(lite, 'compose-hash', other));
    if (!replay.valid) throw new Error(replay.message);
    const app = readDstackAppInfo(replay.events);
    expect(app.composeHash).toBeUndefined();
    expect(app.duplicates).toEqual(['compose-hash']);
    expect(app.appId).toBe(payloadOf('app-id'));
  });

  it('still accepts a fact repeated after system-ready (the app’s own event, not a fact)', () => {
    const late = [
      ...lite,
      {
        imr: 3,
        event_type: DSTACK_RUNTIME_EVENT_TYPE,
        event: 'compose-hash',
        event_payload: other,
        digest: '',
      },
    ];
    expect(verifyLog(late, { composeHash: genuine })).toMatchObject({ valid: true });
  });
});
