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

/**
 * A UUID of `version` (RFC 9562) from the first 16 bytes of `bytes` (a hash, say): the version and variant bits
 * are set, the rest kept. The one formatter of name-based and keyed ids (version 5 names, version 8 keyed
 * hashes).
 *
 * @example
 * uuidFromBytes(createHmac('sha256', secret).update(name).digest(), 8);
 */
export function uuidFromBytes(bytes: Uint8Array, version: number): string {
  const head = Uint8Array.from(bytes.subarray(0, 16));
  head[6] = (head[6]! & 0x0f) | ((version & 0x0f) << 4);
  head[8] = (head[8]! & 0x3f) | 0x80;
  const hex = Array.from(head, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
