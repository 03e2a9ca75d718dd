import { ParleyError } from '@parley/core';
import type { UploadedFile } from '@parley/plugin-sdk';
import { parseMultipart } from './parse-multipart';

/** A route request's parsed body and, on multipart routes, its files. */
export interface ParsedRouteBody {
  body: unknown;
  files?: UploadedFile[];
}

/** The media type of a content-type header, lower case, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function lastWins(entries: Iterable<[string, string]>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of entries) fields[key] = value;
  return fields;
}

/**
 * Parses a body by its content type: JSON (`application/json`, `*+json`), form fields (urlencoded or
 * multipart), else UTF-8 text. An empty body is `undefined` whatever its type.
 *
 * @throws ParleyError `BAD_REQUEST` for invalid JSON or malformed multipart.
 */
export async function parseRouteBody(
  bytes: Uint8Array,
  contentType: string | undefined,
  isMultipartRoute: boolean,
): Promise<ParsedRouteBody> {
  if (bytes.byteLength === 0) return { body: undefined };
  const mediaType = mediaTypeOf(contentType);
  const text = () => new TextDecoder().decode(bytes);
  if (isJson(mediaType)) {
    try {
      return { body: JSON.parse(text()) as unknown };
    } catch {
      throw new ParleyError('BAD_REQUEST', 'Request body must be valid JSON');
    }
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    return { body: lastWins(new URLSearchParams(text())) };
  }
  if (mediaType === 'multipart/form-data') {
    const { fields, files } = await parseMultipart(bytes, contentType!, isMultipartRoute);
    return isMultipartRoute ? { body: fields, files } : { body: fields };
  }
  return { body: text() };
}
