/**
 * @module @parley/plugin-sdk/messaging
 * Posting into the messaging interface from a plugin, over HTTP through `@parley/client`.
 */
export { submitAgentMessage } from './submit-agent-message';
export type { SubmitAgentMessageOptions } from './submit-agent-message';
export { ParleyClientError } from '@parley/client';
