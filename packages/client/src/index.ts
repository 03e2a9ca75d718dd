/**
 * @module @parley/client
 * The typed client integrators install to talk to a Parley server over REST, server-sent events and socket.io.
 */
export { createParleyClient } from './rest/create-parley-client';
export type { CallOptions, ParleyClient, ParleyClientOptions } from './rest/create-parley-client';
export { ParleyClientError } from './client-error';
