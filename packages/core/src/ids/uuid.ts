/** A UUID in the 8-4-4-4-12 hex form, any version, either case. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a value is a UUID in the 8-4-4-4-12 hex form (any version, either case), as channel, agent and
 * message ids are.
 *
 * @example
 * if (!isUuid(body.channelId)) return res.status(400).json({ error: 'channelId must be a UUID' });
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}
