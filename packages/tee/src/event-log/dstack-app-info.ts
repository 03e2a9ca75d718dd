import type { ReplayedEvent } from './replay-event-log';
import { DSTACK_RUNTIME_EVENT_TYPE } from './tee-event';

/** What dstack measures about the app into RTMR3 (hex, lower case), read from a replayed log. */
export interface DstackAppInfo {
  /** The app's id (from its KMS / on-chain registration). */
  appId?: string;
  /** sha256 of the app's app-compose.json: which containers, with which settings, run. */
  composeHash?: string;
  /** This CVM instance's id. */
  instanceId?: string;
  /** The key provider (JSON text), when logged. */
  keyProvider?: string;
  /** The OS image hash (hex), when logged (dstack 0.6 and later). */
  osImageHash?: string;
  /** Every RTMR3 runtime event name, in order (app-emitted events after `system-ready` included). */
  events: string[];
  /**
   * App facts logged more than once before `system-ready` (event names, e.g. `compose-hash`). Their values are
   * left out above: dstack's verifier reads the last, an earlier reader the first, so the log names no one
   * value. The measurement policy refuses such a log (`EVENT_LOG_DUPLICATE`).
   */
  duplicates: string[];
}

/** The runtime events that carry an app fact; each may appear once before `system-ready`. */
export const DSTACK_APP_FACT_EVENTS = [
  'app-id',
  'compose-hash',
  'instance-id',
  'key-provider',
  'os-image-hash',
] as const;

/** Only these events can carry app facts: dstack runtime events whose payload was hashed into the digest. */
function isVerifiedRuntimeEvent(event: ReplayedEvent): boolean {
  return event.imr === 3 && event.eventType === DSTACK_RUNTIME_EVENT_TYPE && event.payloadVerified;
}

/**
 * Reads dstack's app facts from the RTMR3 events of a replayed log. Use it after checking that the replay
 * equals the quote's RTMR3 (the measurement policy does both); on its own a log proves nothing.
 *
 * Facts come only from dstack runtime events (type 0x08000001) whose payload the replay hashed into the
 * digest, and only from those before `system-ready`: events after it are emitted by the app itself, as
 * dstack's own verifier treats them. An event of another type with the same name is ignored, whatever its
 * payload. A fact logged twice is ambiguous: it is listed in `duplicates` and its value left out.
 */
export function readDstackAppInfo(events: readonly ReplayedEvent[]): DstackAppInfo {
  const runtime = events.filter(isVerifiedRuntimeEvent);
  const ready = runtime.findIndex((event) => event.event === 'system-ready');
  const system = ready === -1 ? runtime : runtime.slice(0, ready);
  const logged = (name: string) => system.filter((event) => event.event === name);
  const duplicates = DSTACK_APP_FACT_EVENTS.filter((name) => logged(name).length > 1);
  const payload = (name: (typeof DSTACK_APP_FACT_EVENTS)[number]) => {
    const found = logged(name);
    return found.length === 1 ? found[0]!.payload : undefined;
  };
  const keyProvider = payload('key-provider');
  const osImageHash = payload('os-image-hash');
  return {
    appId: payload('app-id'),
    composeHash: payload('compose-hash'),
    instanceId: payload('instance-id'),
    ...(keyProvider !== undefined && {
      keyProvider: Buffer.from(keyProvider, 'hex').toString('utf8'),
    }),
    ...(osImageHash !== undefined && { osImageHash }),
    events: runtime.map((event) => event.event),
    duplicates,
  };
}
