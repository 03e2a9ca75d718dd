import { ParleyError, isUuid } from '@parley/core';

/** Where a page of channels ended: the last channel's activity (as PostgreSQL wrote it) and id. */
export interface ChannelCursor {
  activity: string;
  id: string;
}

/** The opaque `nextCursor` of a page. */
export function encodeCursor(cursor: ChannelCursor): string {
  return Buffer.from(JSON.stringify([cursor.activity, cursor.id])).toString('base64url');
}

/** A `cursor` query parameter, or BAD_REQUEST when it is not one this server gave. */
export function decodeCursor(value: string): ChannelCursor {
  const invalid = () => new ParleyError('BAD_REQUEST', 'cursor is not a cursor this server gave');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalid();
  const [activity, id] = parsed as unknown[];
  if (typeof activity !== 'string' || !isUuid(id)) throw invalid();
  // PostgreSQL's text form of a timestamptz: date, time with up to microseconds, offset.
  if (!/^\d{4,}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d(:\d\d){0,2}$/.test(activity)) {
    throw invalid();
  }
  return { activity, id };
}
