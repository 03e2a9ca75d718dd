import { sha384 } from '@noble/hashes/sha2.js';
import { bytesEqual, bytesToHex } from '../bytes';
import { DSTACK_RUNTIME_EVENT_TYPE, type TeeEvent } from './tee-event';

const encoder = new TextEncoder();
const HEX = /^([0-9a-fA-F]{2})*$/;

/** An event as replayed: what it measured and the register value right after it. */
export interface ReplayedEvent {
  index: number;
  imr: number;
  /** The logged event type (`DSTACK_RUNTIME_EVENT_TYPE` for dstack's runtime events). */
  eventType: number;
  event: string;
  /** Hex payload (dstack runtime events: what the digest is computed from). */
  payload: string;
  /** The digest extended into the register (for runtime events: computed from name and payload). */
  digest: string;
  /**
   * True only for a dstack runtime event (type 0x08000001) whose digest was computed here from its name and
   * payload: only such an event can carry app facts. Any other event's payload is unchecked text.
   */
  payloadVerified: boolean;
  /** dstack's runtime event digest version (1 or 2) for runtime events. */
  version?: 1 | 2;
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

function hexOf(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/**
 * The bytes dstack hashes for a runtime event. V1: `event_type as u32 LE || ":" || event || ":" || payload`.
 * V2: the RFC 8785 canonical JSON `{"name":…,"payload":"<hex>","type":134217729}` (keys sorted, no spaces).
 */
export function dstackEventPreimage(
  event: string,
  payloadHex: string,
  version: 1 | 2 = 1,
): Uint8Array {
  const payload = hexOf(payloadHex);
  if (version === 2) {
    const json = `{"name":${JSON.stringify(event)},"payload":"${bytesToHex(payload)}","type":${DSTACK_RUNTIME_EVENT_TYPE}}`;
    return encoder.encode(json);
  }
  const type = new Uint8Array(4);
  new DataView(type.buffer).setUint32(0, DSTACK_RUNTIME_EVENT_TYPE, true);
  return new Uint8Array([...type, ...encoder.encode(`:${event}:`), ...payload]);
}

/** dstack's runtime event digest (hex): SHA-384 of {@link dstackEventPreimage}. */
export function dstackEventDigest(event: string, payloadHex: string, version: 1 | 2 = 1): string {
  return bytesToHex(sha384(dstackEventPreimage(event, payloadHex, version)));
}

/** RTMR extend: `register = sha384(register || digest)`. */
export function extendRegister(register: Uint8Array, digest: Uint8Array): Uint8Array {
  return sha384(new Uint8Array([...register, ...digest]));
}

type Measured = { digest: string; version?: 1 | 2 } | { message: string };

/** The digest a runtime event extends, computed from its name and payload as dstack does. */
function runtimeDigest(entry: TeeEvent, index: number): Measured {
  const raw = (entry as { version?: unknown }).version;
  const version = raw === undefined || raw === null ? 1 : raw;
  const where = `event ${index} (${entry.event})`;
  if (version !== 1 && version !== 2)
    return { message: `${where} has unknown version ${String(raw)}` };
  const digest = dstackEventDigest(entry.event, entry.event_payload, version);
  // dstack 0.6 leaves the digest of runtime events empty: the verifier recomputes it, as dstack's does.
  if (entry.digest !== '' && entry.digest.toLowerCase() !== digest) {
    return { message: `${where} does not match its digest` };
  }
  const preimage = (entry as { preimage?: unknown }).preimage;
  if (preimage !== undefined && preimage !== null) {
    const canonical = dstackEventPreimage(entry.event, entry.event_payload, version);
    if (
      typeof preimage !== 'string' ||
      !HEX.test(preimage) ||
      !bytesEqual(hexOf(preimage), canonical)
    ) {
      return { message: `${where} has a preimage that is not its canonical form` };
    }
  }
  return { digest, version };
}

function measure(entry: TeeEvent, index: number): Measured {
  const { imr, digest, event, event_payload: payload, event_type: type } = entry;
  if (!Number.isInteger(imr) || imr < 0 || imr > 3) {
    return { message: `event ${index} (${event}) names RTMR ${imr}` };
  }
  if (typeof digest !== 'string' || typeof payload !== 'string' || typeof event !== 'string') {
    return { message: `event ${index} is malformed` };
  }
  if (!HEX.test(payload) || !HEX.test(digest)) {
    return { message: `event ${index} (${event}) has a malformed digest or payload` };
  }
  if (type === DSTACK_RUNTIME_EVENT_TYPE) return runtimeDigest(entry, index);
  if (digest.length !== 96) {
    return { message: `event ${index} (${event}) has a malformed digest or payload` };
  }
  return { digest: digest.toLowerCase() };
}

/**
 * Replays an event log (SHA-384 extend, from 48 zero bytes per register) and shows which events produced each
 * RTMR. As dstack's verifier does, a runtime event (type 0x08000001) extends the digest of its own name and
 * payload (V1, or V2 when it says `version: 2`); a logged digest, when not empty, must be that digest, and a
 * logged V2 preimage must be the canonical one. So the log cannot claim one compose hash while having extended
 * another. Other events (firmware, TCG) are replayed as logged and their payloads prove nothing. Never throws.
 *
 * @example
 * const replay = replayEventLog(response.eventLog ?? []);
 * if (replay.valid && replay.rtmrs[3] === quote.body.rtmr3) console.log(replay.events.filter((e) => e.imr === 3));
 */
export function replayEventLog(events: readonly TeeEvent[]): EventLogReplay {
  const list: unknown = events;
  if (!Array.isArray(list)) return { valid: false, message: 'the event log is not a list' };
  const registers: Uint8Array[] = [0, 1, 2, 3].map(() => new Uint8Array(48));
  const replayed: ReplayedEvent[] = [];
  for (const [index, item] of (list as unknown[]).entries()) {
    if (typeof item !== 'object' || item === null) {
      return { valid: false, message: `event ${index} is malformed` };
    }
    const entry = item as TeeEvent;
    const measured = measure(entry, index);
    if ('message' in measured) return { valid: false, message: measured.message };
    const { imr, event, event_payload: payload, event_type: eventType } = entry;
    const register = extendRegister(registers[imr]!, hexOf(measured.digest));
    registers[imr] = register;
    replayed.push({
      index,
      imr,
      eventType,
      event,
      payload: payload.toLowerCase(),
      digest: measured.digest,
      payloadVerified: eventType === DSTACK_RUNTIME_EVENT_TYPE,
      ...(measured.version !== undefined && { version: measured.version }),
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
