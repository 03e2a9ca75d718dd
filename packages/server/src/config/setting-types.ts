import { z } from 'zod';

/** An unset or blank setting is absent; any other value is trimmed. */
export function unset(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Free text, trimmed; blank is unset. */
export function text() {
  return z.preprocess(unset, z.string().optional());
}

/** Free text with a default. */
export function textWithDefault(fallback: string) {
  return z.preprocess(unset, z.string().default(fallback));
}

/** A whole number within `min`..`max`, with a default. */
export function wholeNumber(fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  const message =
    max === Number.MAX_SAFE_INTEGER
      ? min === 1
        ? 'must be a positive whole number'
        : `must be a whole number of at least ${min}`
      : `must be a whole number from ${min} to ${max}`;
  return z.preprocess(unset, wholeNumberIn(min, max, message).default(fallback));
}

/** A whole number within `min`..`max`, or unset. */
export function optionalWholeNumber(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.preprocess(unset, wholeNumberIn(min, max, message).optional());
}

/** A number read from text, whole and within `min`..`max`, else `message`. */
function wholeNumberIn(min: number, max: number, message: string) {
  return z.coerce
    .number({ error: message })
    .int({ error: message })
    .min(min, { error: message })
    .max(max, { error: message });
}

function caseOf(values: readonly string[]) {
  const lower = new Map(values.map((value) => [value.toLowerCase(), value]));
  return (value: unknown) => {
    const given = unset(value);
    return typeof given === 'string' ? (lower.get(given.toLowerCase()) ?? given) : given;
  };
}

/** One of `values` with a default, compared case-insensitively and given in the case of `values`. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  fallback: T[number],
) {
  const schema = z.enum(values, { error: `must be one of ${values.join(', ')}` });
  return z.preprocess(caseOf(values), schema.default(fallback as never));
}

/** One of `values` or unset, compared case-insensitively. */
export function optionalOneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const schema = z.enum(values, { error: `must be one of ${values.join(', ')}` });
  return z.preprocess(caseOf(values), schema.optional());
}

/** A URL whose scheme is one of `protocols` (`'http:'`, `'postgres:'`…). */
export function urlOf(protocols: readonly string[], description: string) {
  return z.preprocess(
    unset,
    z
      .string()
      .refine(
        (value) => {
          try {
            return protocols.includes(new URL(value).protocol);
          } catch {
            return false;
          }
        },
        { error: `must be ${description}` },
      )
      .optional(),
  );
}

/** A comma-separated list, each item trimmed, blanks dropped. */
export function list() {
  return z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item !== '')
        : [],
    z.array(z.string()),
  );
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A comma-separated list of durations (`5s,5m,30m,2h`; units ms, s, m, h, d, each at most 7 days) in
 * milliseconds, with a default. An empty value is the default; `none` is an empty list.
 */
export function durationList(fallback: readonly number[]) {
  return z.preprocess(
    unset,
    z
      .string()
      .transform((value, context) => {
        if (value.toLowerCase() === 'none') return [];
        const ms: number[] = [];
        for (const raw of value.split(',')) {
          const entry = raw.trim();
          const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(entry);
          const amount = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
          if (!Number.isFinite(amount) || amount > 7 * UNIT_MS.d) {
            context.addIssue({
              code: 'custom',
              message: `must be comma-separated durations such as 5s,5m,2h (not "${entry}")`,
            });
            return z.NEVER;
          }
          ms.push(Math.round(amount));
        }
        return ms;
      })
      .default([...fallback]),
  );
}

/** The words a yes/no setting takes, either case. */
export const YES: ReadonlySet<string> = new Set(['true', 'yes', 'on', '1']);
export const NO: ReadonlySet<string> = new Set(['false', 'no', 'off', '0']);

/** A yes/no setting with a default. */
export function yesNo(fallback: boolean) {
  return z.preprocess(
    (value) => {
      const text = unset(value);
      if (typeof text !== 'string') return text;
      const word = text.toLowerCase();
      return YES.has(word) ? true : NO.has(word) ? false : text;
    },
    z.boolean({ error: 'must be true or false' }).default(fallback),
  );
}

/** A number above 0 (fractions allowed) with a default. */
export function positiveNumber(fallback: number) {
  const message = 'must be a number above 0';
  return z.preprocess(
    unset,
    z.coerce.number({ error: message }).positive({ error: message }).default(fallback),
  );
}

/** A comma-separated list, each item trimmed, blanks dropped; undefined when unset. */
export function optionalList() {
  return z.preprocess((value) => {
    const text = unset(value);
    return typeof text === 'string'
      ? text
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '')
      : text;
  }, z.array(z.string()).optional());
}
