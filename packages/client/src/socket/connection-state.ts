import type { ParleyClientError } from '../client-error';

/** What {@link ParleySocket.onConnectionChange} reports. */
export type ConnectionState =
  /** Connected; after a reconnect, once the rooms in `rejoined` were joined again. */
  | { status: 'connected'; rejoined: string[] }
  /** The connection closed; `willReconnect` tells whether the client tries again by itself. */
  | { status: 'disconnected'; reason: string; willReconnect: boolean }
  /** A reconnection attempt is starting (1-based). */
  | { status: 'reconnecting'; attempt: number }
  /** The client gave up: rejected credentials, or every reconnection attempt failed. */
  | { status: 'failed'; error: ParleyClientError };
