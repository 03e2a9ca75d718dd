import { z } from 'zod';

/**
 * A UUID in the 8-4-4-4-12 hex form (any version), normalised to lower case so that room ids compare
 * exactly whatever case a client used.
 */
export const uuidSchema = z
  .guid({ message: 'must be a UUID' })
  .transform((value) => value.toLowerCase());

/** Maximum length of one message's text, in characters. */
export const MAX_TEXT_LENGTH = 100_000;

/** Deepest nesting of metadata (and any other free-form JSON) that is stored: `{a:{b:1}}` is depth 2. */
export const MAX_JSON_DEPTH = 32;

/** Largest free-form JSON value (metadata, attachments) that is stored, in characters of JSON (256 KiB). */
export const MAX_JSON_LENGTH = 256 * 1024;

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string cannot be stored, or undefined when it can. PostgreSQL refuses NUL in `text` and in `jsonb`,
 * and a lone UTF-16 surrogate is not Unicode (`jsonb` refuses it; UTF-8 would silently turn it into U+FFFD).
 */
export function unstorableTextReason(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL (\\u0000)';
  if (LONE_SURROGATE.test(value)) return 'must not contain a lone UTF-16 surrogate';
  return undefined;
}

// Every lone surrogate, for toStorableText.
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * `value` as a database can store it: NUL characters are dropped and each lone UTF-16 surrogate becomes U+FFFD
 * (as `String.prototype.toWellFormed` does); every other character is kept. For text taken from the outside
 * world (a file name, a webhook's title) that is posted as is; input a client should correct is refused instead
 * (see {@link unstorableTextReason}).
 *
 * @example
 * const filename = toStorableText(file.originalname);
 */
export function toStorableText(value: string): string {
  return value.replaceAll('\u0000', '').replace(LONE_SURROGATES, '\uFFFD');
}

/**
 * A string that PostgreSQL and JSON can hold: no NUL, no lone surrogate. Chain `.max()`, `.min()`, `.trim()`
 * as with any zod string.
 */
export function storableString() {
  return z.string().superRefine((value, context) => {
    const reason = unstorableTextReason(value);
    if (reason) context.addIssue({ code: 'custom', message: reason });
  });
}

/** An entity, author or sender id: free-form, but never empty. */
export const entityIdSchema = storableString().trim().min(1, 'must not be empty').max(256);

/** A short free-form label (a display name, a source): storable, at most 256 characters. */
export const labelSchema = storableString().trim().min(1, 'must not be empty').max(256);

/** Message text: may be empty for attachment-only messages, bounded in length. */
export const messageTextSchema = storableString().max(MAX_TEXT_LENGTH);

/** Where a JSON value cannot be stored, and why. */
export interface JsonProblem {
  /** Path below the value checked (keys and indexes). */
  path: (string | number)[];
  message: string;
}

/**
 * The first reason `value` cannot be stored as JSON in PostgreSQL, or undefined: a string or key that
 * {@link unstorableTextReason} refuses, nesting deeper than `maxDepth`, more than `maxLength` characters of
 * JSON, a non-finite number or a value JSON has no form for. The walk stops at the first problem, so a hostile
 * value costs no more than the bounds allow.
 */
export function findJsonProblem(
  value: unknown,
  options: { maxDepth?: number; maxLength?: number } = {},
): JsonProblem | undefined {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const maxLength = options.maxLength ?? MAX_JSON_LENGTH;
  let length = 0;
  const path: (string | number)[] = [];
  const problem = (message: string): JsonProblem => ({ path: [...path], message });

  function walk(node: unknown, depth: number): JsonProblem | undefined {
    const found = check(node, depth);
    if (found) return found;
    return length > maxLength
      ? problem(`must be at most ${maxLength} characters of JSON`)
      : undefined;
  }

  function check(node: unknown, depth: number): JsonProblem | undefined {
    if (node === null || node === undefined || typeof node === 'boolean') {
      length += 5;
      return undefined;
    }
    if (typeof node === 'string') {
      length += node.length + 2;
      const reason = unstorableTextReason(node);
      return reason ? problem(reason) : undefined;
    }
    if (typeof node === 'number') {
      length += 8;
      return Number.isFinite(node) ? undefined : problem('must be a finite number');
    }
    if (node instanceof Date) {
      length += 26;
      return isStorableDate(node) ? undefined : problem('must be a date in the years 1 to 9999');
    }
    if (typeof node !== 'object') return problem('must be a JSON value');
    if (depth >= maxDepth) return problem(`must be nested at most ${maxDepth} levels deep`);
    const entries = Array.isArray(node)
      ? node.map((item, index) => [index, item] as const)
      : Object.entries(node);
    length += 2;
    for (const [key, item] of entries) {
      path.push(key);
      if (typeof key === 'string') {
        length += key.length + 3;
        const reason = unstorableTextReason(key);
        if (reason) return problem(`key ${reason}`);
      }
      const found = walk(item, depth + 1);
      if (found) return found;
      path.pop();
    }
    return undefined;
  }

  return walk(value, 0);
}

/**
 * A zod refinement that adds an issue, at the offending path, when a value cannot be stored as JSON (see
 * {@link findJsonProblem}).
 *
 * @example
 * const schema = z.array(z.unknown()).superRefine(refineStorableJson);
 */
export function refineStorableJson(value: unknown, context: z.RefinementCtx): void {
  const found = findJsonProblem(value);
  if (found) context.addIssue({ code: 'custom', path: found.path, message: found.message });
}

/** Free-form JSON object metadata: storable strings and keys, bounded depth and size. */
export const metadataSchema = z.record(z.string(), z.unknown()).superRefine(refineStorableJson);

/**
 * An attachment description carried in message metadata: Parley's `{filename, size, mimeType}`, or elizaOS's
 * `Media` (`{id, url, contentType?, title?}`, what an upload answers and elizaOS clients and actions send).
 */
export const attachmentSchema = z.union([
  z.looseObject({
    filename: storableString().max(1024),
    size: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    mimeType: storableString().max(256),
  }),
  z.looseObject({
    id: storableString().min(1).max(256),
    url: storableString().min(1).max(4096),
    contentType: storableString().max(256).optional(),
    title: storableString().max(1024).optional(),
  }),
]);

/** @see attachmentSchema */
export type Attachment = z.infer<typeof attachmentSchema>;

// Date.UTC reads years 0-99 as 1900-1999, so the bounds are parsed from ISO strings.
const FIRST_STORABLE_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_STORABLE_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Whether a date is valid and falls in the years 1 to 9999 (UTC): what ISO 8601 writes with four digits and
 * what every database and JSON consumer reads back the same way.
 */
export function isStorableDate(date: Date): boolean {
  const time = date.getTime();
  return time >= FIRST_STORABLE_INSTANT && time <= LAST_STORABLE_INSTANT;
}

/**
 * An ISO 8601 instant with a `Z` or numeric offset, read strictly (`2100-02-30T00:00:00Z` is refused, not
 * read as March 2nd) and within the years 1 to 9999. Stays a string; `new Date(value)` reads it exactly.
 */
export const instantSchema = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset' })
  .refine((value) => isStorableDate(new Date(value)), 'must be a date in the years 1 to 9999');
