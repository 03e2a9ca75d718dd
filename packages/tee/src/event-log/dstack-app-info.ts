import type { ReplayedEvent } from './replay-event-log';

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
  /** Every RTMR3 event name, in order. */
  events: string[];
}

/**
 * Reads dstack's app facts from the RTMR3 events of a replayed log. Use it after checking that the replay
 * equals the quote's RTMR3 (the measurement policy does both); on its own a log proves nothing.
 */
export function readDstackAppInfo(events: readonly ReplayedEvent[]): DstackAppInfo {
  const rtmr3 = events.filter((event) => event.imr === 3);
  const payload = (name: string) => rtmr3.find((event) => event.event === name)?.payload;
  const keyProvider = payload('key-provider');
  return {
    appId: payload('app-id'),
    composeHash: payload('compose-hash'),
    instanceId: payload('instance-id'),
    ...(keyProvider !== undefined && {
      keyProvider: Buffer.from(keyProvider, 'hex').toString('utf8'),
    }),
    events: rtmr3.map((event) => event.event),
  };
}
