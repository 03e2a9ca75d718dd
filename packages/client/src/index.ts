/**
 * @module @parley/client
 * The typed client integrators install to talk to a Parley server over REST, server-sent events and socket.io.
 */
export { createParleyClient } from './client';
export type { ParleyClient, ParleyClientOptions } from './client';
export { ParleyClientError } from './client-error';
