import { sha384 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '../bytes';
import { DSTACK_RUNTIME_EVENT_TYPE, type TeeEvent } from './tee-event';

const encoder = new TextEncoder();
const HEX = /^([0-9a-fA-F]{2})*$/;

/** An event as replayed: what it measured and the register value right after it. */
export interface ReplayedEvent {
  index: number;
  imr: number;
  event: string;
  /** Hex payload (dstack runtime events: what the digest is computed from). */
  payload: string;
  digest: string;
  /** The register after extending this event. */
  registerAfter: string;
}

/** The outcome of {@link replayEventLog}. */
export type EventLogReplay =
  | {
      valid: true;
      /** RTMR0..3 as the log rebuilds them (hex); a register with no event stays all zero. */
      rtmrs: [string, string, string, string];
      /** Every event, in order, with the register value after it. */
      events: ReplayedEvent[];
    }
  | { valid: false; message: string };

/** dstack's runtime event digest: `sha384(event_type as u32 LE || ":" || event || ":" || payload)`. */
export function dstackEventDigest(event: string, payloadHex: string): string {
  const type = new Uint8Array(4);
  new DataView(type.buffer).setUint32(0, DSTACK_RUNTIME_EVENT_TYPE, true);
  const payload = Buffer.from(payloadHex, 'hex');
  return bytesToHex(sha384(new Uint8Array([...type, ...encoder.encode(`:${event}:`), ...payload])));
}

/** RTMR extend: `register = sha384(register || digest)`. */
export function extendRegister(register: Uint8Array, digest: Uint8Array): Uint8Array {
  return sha384(new Uint8Array([...register, ...digest]));
}

/**
 * Replays an event log (SHA-384 extend, from 48 zero bytes per register) and shows which events produced each
 * RTMR. A dstack runtime event's digest must be the digest of its own name and payload, so the log cannot claim
 * one compose hash while having extended another; other events (firmware, TCG) are replayed as logged.
 *
 * @example
 * const replay = replayEventLog(response.eventLog ?? []);
 * if (replay.valid && replay.rtmrs[3] === quote.body.rtmr3) console.log(replay.events.filter((e) => e.imr === 3));
 */
export function replayEventLog(events: readonly TeeEvent[]): EventLogReplay {
  const registers: Uint8Array[] = [0, 1, 2, 3].map(() => new Uint8Array(48));
  const replayed: ReplayedEvent[] = [];
  for (const [index, entry] of events.entries()) {
    const { imr, digest, event, event_payload: payload } = entry;
    if (!Number.isInteger(imr) || imr < 0 || imr > 3) {
      return { valid: false, message: `event ${index} (${event}) names RTMR ${imr}` };
    }
    if (!HEX.test(digest) || digest.length !== 96 || !HEX.test(payload)) {
      return {
        valid: false,
        message: `event ${index} (${event}) has a malformed digest or payload`,
      };
    }
    if (
      entry.event_type === DSTACK_RUNTIME_EVENT_TYPE &&
      dstackEventDigest(event, payload) !== digest.toLowerCase()
    ) {
      return { valid: false, message: `event ${index} (${event}) does not match its digest` };
    }
    const register = extendRegister(registers[imr]!, Buffer.from(digest, 'hex'));
    registers[imr] = register;
    replayed.push({
      index,
      imr,
      event,
      payload: payload.toLowerCase(),
      digest: digest.toLowerCase(),
      registerAfter: bytesToHex(register),
    });
  }
  const [rtmr0, rtmr1, rtmr2, rtmr3] = registers.map(bytesToHex) as [
    string,
    string,
    string,
    string,
  ];
  return { valid: true, rtmrs: [rtmr0, rtmr1, rtmr2, rtmr3], events: replayed };
}
