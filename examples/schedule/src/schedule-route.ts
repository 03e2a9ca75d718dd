import { defineRoute, errorCodeOf, isRecord, isUuid } from '@parley/plugin-sdk';
import { parseSendAt } from './parse-send-at';

/** The scheduling request `POST /schedule` takes. */
export interface ScheduleRequest {
  channelId: string;
  message: string;
  sendAt: Date;
}

/** The request, or the reason it is refused (a 400). */
export function parseScheduleRequest(
  body: unknown,
  now: Date,
): { ok: true; value: ScheduleRequest } | { ok: false; error: string } {
  if (!isRecord(body)) return { ok: false, error: 'Body must be a JSON object' };
  const { channelId, message } = body;
  if (!isUuid(channelId)) return { ok: false, error: 'channelId must be a UUID' };
  if (typeof message !== 'string' || message.trim() === '') {
    return { ok: false, error: 'message is required' };
  }
  const sendAt = parseSendAt(body.sendAt);
  if (!sendAt)
    return { ok: false, error: 'sendAt must be a date, for example 2030-01-01T09:00:00Z' };
  if (sendAt.getTime() <= now.getTime())
    return { ok: false, error: 'sendAt must be in the future' };
  return { ok: true, value: { channelId, message, sendAt } };
}

/**
 * `POST /schedule`: `{ channelId, message, sendAt }` makes the agent post `message` into the channel at
 * `sendAt`, durably (the server keeps it across restarts and posts it once). Answers
 * `200 { success: true, message, scheduledId, sendAt }`; `400 { success: false, error }` when sendAt is not a
 * date or not in the future, channelId is not a UUID or message is missing; 500 on failure.
 */
export const scheduleRoute = defineRoute({
  type: 'POST',
  path: '/schedule',
  name: 'schedule',
  async handler(request, response, runtime) {
    const parsed = parseScheduleRequest(request.body, new Date());
    if (!parsed.ok) {
      response.status(400).json({ success: false, error: parsed.error });
      return;
    }
    const { channelId, message, sendAt } = parsed.value;
    try {
      const scheduled = await runtime.scheduleMessage({ channelId, text: message, sendAt });
      response.json({
        success: true,
        message: `Message scheduled for ${scheduled.sendAt}`,
        scheduledId: scheduled.id,
        sendAt: scheduled.sendAt,
      });
    } catch (error) {
      // The server checks again (sendAt may have passed meanwhile, the text may be too long): still a 400.
      if (errorCodeOf(error) === 'BAD_REQUEST') {
        response.status(400).json({ success: false, error: (error as Error).message });
        return;
      }
      runtime.logger.error({ err: error, channelId }, 'scheduling a message failed');
      response.status(500).json({ success: false, error: 'Failed to schedule the message' });
    }
  },
});
