// The calendar date at the start of an ISO 8601 string (extended years too): `2100-02-30…`.
const ISO_DATE = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?![0-9])/;

/**
 * Whether the date an ISO 8601 string starts with exists: `Date.parse` rolls `2100-02-30` over to March 2nd
 * where the caller meant a day that is not there. Strings that do not start with a date pass (their other
 * checks are `Date.parse`'s).
 */
function namesARealDay(value: string): boolean {
  const match = ISO_DATE.exec(value.trim());
  if (!match) return true;
  const [, yearText, monthText, dayText] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  if (month < 1 || month > 12 || day < 1) return false;
  // Day 0 of the next month is the last day of this one (the year's leap day included).
  const lastDay = new Date(Date.UTC(2000, month, 0));
  lastDay.setUTCFullYear(year, month, 0);
  return day <= lastDay.getUTCDate();
}

/**
 * The instant a `sendAt` value names: a date string (ISO 8601 or any form `Date.parse` reads) or epoch
 * milliseconds; undefined when it is neither, or when it names a day the calendar does not have
 * (`2100-02-30`).
 */
export function parseSendAt(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  if (typeof value === 'string' && (value.trim() === '' || !namesARealDay(value))) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
