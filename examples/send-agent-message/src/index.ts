/**
 * @module @parley/example-send-agent-message
 * Example Parley plugin for SPEC.md's `POST /send-agent-message` reference route.
 */
export {
  sendAgentMessagePlugin,
  sendAgentMessagePlugin as default,
} from './send-agent-message-plugin';
export { sendAgentMessagePluginTests } from './send-agent-message-plugin-tests';
export { sendAgentMessageRoute } from './send-agent-message-route';
export { parseSendRequest } from './parse-send-request';
export type { SendAgentMessageRequest } from './parse-send-request';
