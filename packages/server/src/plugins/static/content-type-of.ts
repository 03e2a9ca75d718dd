import { extname } from 'node:path';
import { getMimeType, mimes } from 'hono/utils/mime';

/** hono's MIME table, plus what plugin folders hold that it lacks. */
const TYPES: Record<string, string> = {
  ...mimes,
  md: 'text/markdown; charset=utf-8',
  map: 'application/json',
};

/**
 * The content type of a file by its extension, from hono's MIME table (text types with `charset=utf-8`);
 * unknown extensions are `application/octet-stream`.
 */
export function contentTypeOf(filePath: string): string {
  return getMimeType(`file${extname(filePath).toLowerCase()}`, TYPES) ?? 'application/octet-stream';
}
