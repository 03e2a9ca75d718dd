import { sha384 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();

/** One entry of a dstack event log (dstack SDK field names). */
export interface SimulatorEvent {
  imr: number;
  event_type: number;
  /** Hex SHA-384 digest extended into RTMR `imr`. */
  digest: string;
  event: string;
  /** Hex. */
  event_payload: string;
}

/** What the simulated TD measured: fixed firmware and OS, an RTMR3 that is the replay of its event log. */
export interface SimulatorMeasurements {
  mrTd: Uint8Array;
  rtmrs: [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  eventLog: SimulatorEvent[];
}

/** dstack's event type for runtime events (not a TCG type). */
export const DSTACK_RUNTIME_EVENT_TYPE = 0x08000001;

function label(text: string): Uint8Array {
  return sha384(encoder.encode(`parley/dstack-simulator/${text}`));
}

/** dstack's runtime event digest: `sha384(event_type as u32 LE || ":" || event || ":" || payload)`. */
function runtimeEventDigest(event: string, payload: Uint8Array): Uint8Array {
  const type = new Uint8Array(4);
  new DataView(type.buffer).setUint32(0, DSTACK_RUNTIME_EVENT_TYPE, true);
  return sha384(new Uint8Array([...type, ...encoder.encode(`:${event}:`), ...payload]));
}

/** RTMR extend as TDX does it and the dstack SDK replays it: `mr = sha384(mr || digest)`, from 48 zero bytes. */
function replay(digests: readonly Uint8Array[]): Uint8Array {
  let register = new Uint8Array(48);
  for (const digest of digests) register = sha384(new Uint8Array([...register, ...digest]));
  return register;
}

/** What the simulated app is: dstack's ids and the hash of its app-compose.json. */
export interface SimulatedApp {
  /** 20 bytes, hex. */
  appId: string;
  /** 20 bytes, hex. */
  instanceId: string;
  /** sha256 of app-compose.json, hex. */
  composeHash: string;
}

/**
 * The simulated TD's measurements. MRTD and RTMR0-2 depend on nothing (same "image" everywhere, as on real
 * hardware); RTMR3 replays dstack's boot events (app id, compose hash, instance id, key provider…), with
 * dstack's digests, so a verifier replays it exactly as it would a real dstack CVM's log.
 */
export function simulatorMeasurements(app: SimulatedApp): SimulatorMeasurements {
  const hex = (value: string) => Buffer.from(value, 'hex');
  const events: [string, Uint8Array][] = [
    ['system-preparing', new Uint8Array()],
    ['app-id', hex(app.appId)],
    ['compose-hash', hex(app.composeHash)],
    ['instance-id', hex(app.instanceId)],
    ['boot-mr-done', new Uint8Array()],
    ['key-provider', encoder.encode(JSON.stringify({ name: 'parley-simulator', id: '' }))],
    ['system-ready', new Uint8Array()],
  ];
  const eventLog = events.map(([event, payload]) => ({
    imr: 3,
    event_type: DSTACK_RUNTIME_EVENT_TYPE,
    digest: Buffer.from(runtimeEventDigest(event, payload)).toString('hex'),
    event,
    event_payload: Buffer.from(payload).toString('hex'),
  }));
  const rtmr3 = replay(eventLog.map(({ digest }) => hex(digest)));
  return {
    mrTd: label('mrtd'),
    rtmrs: [label('rtmr0'), label('rtmr1'), label('rtmr2'), rtmr3],
    eventLog,
  };
}
