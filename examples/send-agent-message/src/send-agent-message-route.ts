import { defineRoute, errorCodeOf, submitAgentMessage } from '@parley/plugin-sdk';
import { parseSendRequest } from './parse-send-request';

/**
 * `POST /send-agent-message`: `{ channelId, message, metadata? }` makes the agent post `message` into the
 * channel through the messaging interface (`POST {SERVER_URL}/api/messaging/submit`), as an external
 * integration would. Answers `200 { success: true, messageId, message }`; `400 { success: false, error }` when
 * channelId or message is missing or channelId is not a UUID, or when the messaging interface refuses the
 * message as bad input (too long, unstorable characters); `500 { success: false, error }` on any other failure,
 * the cause logged and never returned.
 */
export const sendAgentMessageRoute = defineRoute({
  type: 'POST',
  path: '/send-agent-message',
  name: 'send-agent-message',
  async handler(request, response, runtime) {
    const parsed = parseSendRequest(request.body);
    if (!parsed.ok) {
      response.status(400).json({ success: false, error: parsed.error });
      return;
    }
    const { channelId, message, thought, actions, metadata } = parsed.value;
    try {
      const stored = await submitAgentMessage(runtime, {
        channelId,
        text: message,
        thought,
        actions,
        metadata,
      });
      response.json({ success: true, messageId: stored.id, message: 'Message sent' });
    } catch (error) {
      // The messaging interface refused the message itself (too long, NUL…): the caller's mistake, said as is.
      if (errorCodeOf(error) === 'BAD_REQUEST') {
        response.status(400).json({ success: false, error: (error as Error).message });
        return;
      }
      runtime.logger.error({ err: error, channelId }, 'sending an agent message failed');
      response.status(500).json({ success: false, error: 'Failed to send the message' });
    }
  },
});
