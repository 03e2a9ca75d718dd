import { definePlugin } from '@parley/plugin-sdk';
import { sendAgentMessagePluginTests } from './send-agent-message-plugin-tests';
import { sendAgentMessageRoute } from './send-agent-message-route';

/**
 * The send-agent-message example plugin: `POST /send-agent-message` posts as the agent through
 * `POST /api/messaging/submit` at `SERVER_URL` (with `SERVER_AUTH_TOKEN` as `x-api-key` when set).
 */
export const sendAgentMessagePlugin = definePlugin({
  name: 'send-agent-message',
  description: 'Lets an external system make the agent post a message into a channel.',
  routes: [sendAgentMessageRoute],
  tests: sendAgentMessagePluginTests,
});
