import {
  defineRoute,
  errorCodeOf,
  GITHUB_EVENT_HEADER,
  GITHUB_SIGNATURE_HEADER,
  isRecord,
  isUuid,
  type RouteRequest,
  toStorableText,
  verifyGithubSignature,
} from '@parley/plugin-sdk';
import { deliveryMessageId, isConflict } from './delivery-message-id';
import { formatGithubEvent } from './format-github-event';
import type { GithubPayload } from './github-payload';

/**
 * The event payload: the JSON body, or the `payload` field of a form-encoded delivery (GitHub's other content
 * type); undefined when neither holds a JSON object.
 */
function payloadOf(request: RouteRequest): GithubPayload | undefined {
  const form = (request.headers['content-type'] ?? '').startsWith(
    'application/x-www-form-urlencoded',
  );
  if (!form) return isRecord(request.body) ? request.body : undefined;
  const field = isRecord(request.body) ? request.body.payload : undefined;
  if (typeof field !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(field);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** GitHub caps webhook payloads at 25 MB; this takes every delivery GitHub can send. */
export const GITHUB_MAX_PAYLOAD_BYTES = 25 * 1024 * 1024;

/**
 * `POST /github/webhook`: a GitHub webhook receiver.
 *
 * 1. No `GITHUB_WEBHOOK_SECRET`: 500, logged. The fault is the server's configuration, not the sender's
 *    credentials, and nothing unverified is ever processed.
 * 2. `x-hub-signature-256` missing or not the HMAC of the raw body: 401.
 * 3. No `x-github-event` or no JSON object payload: 400.
 * 4. No valid `NOTIFICATION_CHANNEL_ID`: 200 `{ ok: true }`, so that GitHub does not report a failure.
 * 5. An event kind in `FORMATTED_GITHUB_EVENTS`: posted into the channel as the agent, 200
 *    `{ success: true, message, messageId }`; other kinds and actions: 200 `{ success: true, message }`, not
 *    posted.
 * 6. A delivery already posted (same `x-github-delivery`): 200 `{ success: true, duplicate: true, messageId }`,
 *    not posted again. The message id derives from the delivery id, so this holds across restarts.
 * 7. Posting fails: 500 `{ success: false, error }` without internal detail, logged.
 *
 * Public: GitHub cannot send the server's API key; the signature is the authentication. The body limit is
 * GitHub's own cap (25 MB), not the server's 1 MiB: a push of a few thousand commits is larger than that.
 */
export const githubWebhookRoute = defineRoute({
  type: 'POST',
  path: '/github/webhook',
  name: 'github-webhook',
  public: true,
  bodyLimit: GITHUB_MAX_PAYLOAD_BYTES,
  async handler(request, response, runtime) {
    const secret = runtime.getSetting('GITHUB_WEBHOOK_SECRET');
    if (!secret) {
      runtime.logger.error('GITHUB_WEBHOOK_SECRET is not set; refusing a GitHub delivery');
      response.status(500).json({ success: false, error: 'Internal server error' });
      return;
    }
    const signatureHeader = request.headers[GITHUB_SIGNATURE_HEADER];
    if (!verifyGithubSignature({ rawBody: request.rawBody, signatureHeader, secret })) {
      response.status(401).json({ success: false, error: 'Invalid or missing signature' });
      return;
    }
    const event = request.headers[GITHUB_EVENT_HEADER]?.trim();
    const payload = payloadOf(request);
    if (!event || !payload) {
      response.status(400).json({
        success: false,
        error: `Expected an ${GITHUB_EVENT_HEADER} header and a JSON object payload`,
      });
      return;
    }
    const channelId = runtime.getSetting('NOTIFICATION_CHANNEL_ID');
    if (!isUuid(channelId)) {
      runtime.logger.warn({ event }, 'NOTIFICATION_CHANNEL_ID is not a valid UUID; event dropped');
      response.json({ ok: true });
      return;
    }
    const formatted = formatGithubEvent(event, payload);
    if (formatted === undefined) {
      response.json({ success: true, message: `Ignored GitHub event "${event}"` });
      return;
    }
    // Titles and names are the sender's text: what a database cannot store is dropped, the rest is posted.
    const text = toStorableText(formatted);
    const deliveryId = request.headers['x-github-delivery'];
    const messageId = deliveryMessageId(runtime.agentId, channelId, deliveryId);
    try {
      const { id } = await runtime.sendMessage({
        channelId,
        text,
        metadata: { source: 'github', event, deliveryId },
        ...(messageId ? { id: messageId } : {}),
      });
      response.json({ success: true, message: `Processed GitHub event "${event}"`, messageId: id });
    } catch (error) {
      if (messageId && isConflict(error)) {
        runtime.logger.info(
          { event, deliveryId },
          'GitHub delivery already posted; not posted again',
        );
        response.json({
          success: true,
          duplicate: true,
          message: `GitHub delivery already processed`,
          messageId,
        });
        return;
      }
      // Posting failed on the message itself (a BAD_REQUEST, e.g. too long): the sender's 400.
      if (errorCodeOf(error) === 'BAD_REQUEST') {
        response.status(400).json({ success: false, error: (error as Error).message });
        return;
      }
      runtime.logger.error({ err: error, event }, 'posting a GitHub event failed');
      response.status(500).json({ success: false, error: 'Failed to process the event' });
    }
  },
});
