import { sha384 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();

/** One entry of a dstack event log (dstack SDK field names). */
export interface SimulatorEvent {
  imr: number;
  event_type: number;
  digest: string;
  event: string;
  event_payload: string;
}

/** What the simulated TD measured: fixed firmware and OS, an RTMR3 that is the replay of its event log. */
export interface SimulatorMeasurements {
  mrTd: Uint8Array;
  rtmrs: [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  eventLog: SimulatorEvent[];
}

const DSTACK_EVENT_TYPE = 0x08000001;

function label(text: string): Uint8Array {
  return sha384(encoder.encode(`parley/dstack-simulator/${text}`));
}

/** RTMR extend as TDX does it and the dstack SDK replays it: `mr = sha384(mr || digest)`, from 48 zero bytes. */
function replay(digests: readonly Uint8Array[]): Uint8Array {
  let register = new Uint8Array(48);
  for (const digest of digests) register = sha384(new Uint8Array([...register, ...digest]));
  return register;
}

/**
 * The simulated TD's measurements. MRTD and RTMR0-2 depend on nothing (same "image" everywhere, as on real
 * hardware); RTMR3 replays the app events, which carry the instance's app id, so a verifier can replay it.
 */
export function simulatorMeasurements(appId: string, instanceId: string): SimulatorMeasurements {
  const events: [string, string][] = [
    ['app-id', appId],
    ['instance-id', instanceId],
    ['system-ready', ''],
  ];
  const eventLog = events.map(([event, payloadHex]) => ({
    imr: 3,
    event_type: DSTACK_EVENT_TYPE,
    digest: Buffer.from(sha384(encoder.encode(`${event}:${payloadHex}`))).toString('hex'),
    event,
    event_payload: payloadHex,
  }));
  const rtmr3 = replay(eventLog.map(({ digest }) => Buffer.from(digest, 'hex')));
  return {
    mrTd: label('mrtd'),
    rtmrs: [label('rtmr0'), label('rtmr1'), label('rtmr2'), rtmr3],
    eventLog,
  };
}
