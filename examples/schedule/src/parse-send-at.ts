/**
 * The instant a `sendAt` value names: a date string (ISO 8601 or any form `Date.parse` reads) or epoch
 * milliseconds; undefined when it is neither.
 */
export function parseSendAt(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  if (typeof value === 'string' && value.trim() === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
