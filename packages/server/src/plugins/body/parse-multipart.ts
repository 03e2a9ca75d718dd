import { ParleyError } from '@parley/core';
import type { UploadedFile } from '@parley/plugin-sdk';

/** The text fields and the files of a multipart body. */
export interface MultipartContent {
  fields: Record<string, string>;
  files: UploadedFile[];
}

/**
 * Parses a buffered `multipart/form-data` body with the platform's own parser (undici), so no extra dependency
 * handles untrusted input. The body is already bounded by the upload limit when it gets here.
 *
 * @param acceptFile - false on routes that are not multipart: their files are dropped, fields kept.
 * @throws ParleyError `BAD_REQUEST` for a malformed body.
 */
export async function parseMultipart(
  bytes: Uint8Array,
  contentType: string,
  acceptFile: boolean,
): Promise<MultipartContent> {
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new ParleyError('BAD_REQUEST', 'Malformed multipart/form-data body');
  }
  const content: MultipartContent = { fields: {}, files: [] };
  for (const [name, value] of form) {
    if (typeof value === 'string') {
      content.fields[name] = value;
      continue;
    }
    if (!acceptFile) continue;
    content.files.push({
      fieldname: name,
      originalname: value.name,
      size: value.size,
      mimetype: value.type || 'application/octet-stream',
      buffer: new Uint8Array(await value.arrayBuffer()),
    });
  }
  return content;
}
