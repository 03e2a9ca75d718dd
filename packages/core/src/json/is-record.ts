/**
 * Whether a parsed JSON value is an object: not an array, not null. The first check of a request body.
 *
 * @example
 * if (!isRecord(req.body)) return res.status(400).json({ error: 'Body must be a JSON object' });
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
