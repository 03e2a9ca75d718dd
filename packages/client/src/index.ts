/**
 * @module @parley/client
 * The typed client integrators install to talk to a Parley server: REST calls, the channel `stream` mode as
 * server-sent events, and the event socket. `@parley/client/rest`, `/sse` and `/socket` hold the same pieces
 * separately, so that a REST-only app never loads socket.io.
 */
export * from './rest/index';
export * from './sse/index';
export * from './socket/index';
