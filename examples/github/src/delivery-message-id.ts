import { errorCodeOf, uuidV5 } from '@parley/plugin-sdk';

/** Namespace of message ids derived from GitHub deliveries. Fixed forever: changing it would re-post replays. */
export const GITHUB_DELIVERY_NAMESPACE = '9b7c1c52-3f0e-5d7a-8f64-2b1e4c6d8a90';

/**
 * The message id a GitHub delivery is posted under: a UUID v5 of the agent, the channel and the
 * `x-github-delivery` id. A replayed delivery (GitHub's "Redeliver", or a retry after a timeout) derives the same
 * id, so its post fails with CONFLICT instead of posting twice, also across restarts. Undefined without a usable
 * delivery id.
 */
export function deliveryMessageId(
  agentId: string,
  channelId: string,
  deliveryId: string | undefined,
): string | undefined {
  const id = deliveryId?.trim();
  if (!id || id.length > 200) return undefined;
  return uuidV5(`github:${agentId}:${channelId.toLowerCase()}:${id}`, GITHUB_DELIVERY_NAMESPACE);
}

/** Whether an error is the CONFLICT a second post with the same id gets. */
export function isConflict(error: unknown): boolean {
  return errorCodeOf(error) === 'CONFLICT';
}
