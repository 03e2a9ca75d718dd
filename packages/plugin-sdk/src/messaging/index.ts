/**
 * @module @parley/plugin-sdk/messaging
 * Posting into the messaging interface from a plugin, over HTTP through `@parley/client`.
 */
export { submitAgentMessage } from './submit-agent-message';
export type { SubmitAgentMessageOptions } from './submit-agent-message';
// The REST entry: the package's root also loads socket.io's client, which posting never uses.
export { ParleyClientError } from '@parley/client/rest';
