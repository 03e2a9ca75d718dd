import { randomUUID } from 'node:crypto';
import { ParleyError, parseOrThrow, uuidSchema } from '@parley/core';
import { Hono } from 'hono';
import type { AttachmentStore } from '../../attachments/attachment-store';
import { sniffContentType } from '../../attachments/sniff-type';
import { readBodyBytes } from '../../plugins/body/read-body-bytes';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';

/** Options of {@link attachmentRoutes}. */
export interface AttachmentRoutesOptions {
  /** `ATTACHMENT_MAX_BYTES`: the largest file accepted (413 over it). */
  maxBytes: number;
}

/** What a multipart body may add around its files (boundaries, part headers, a few small fields). */
export const MULTIPART_OVERHEAD = 64 * 1024;
/** Longest file name kept, in characters. */
const MAX_NAME_LENGTH = 255;
/** Images are shown where they are linked; every other type is a download. */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** A file name as stored: its last path segment, without control characters, at most 255 characters. */
export function cleanFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const clean = [...base]
    .filter((character) => character.charCodeAt(0) > 0x1f && character.charCodeAt(0) !== 0x7f)
    .join('')
    .trim()
    .slice(0, MAX_NAME_LENGTH);
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean;
}

/** `Content-Disposition` for a stored file: `inline` for images, else `attachment`, with both name forms. */
export function contentDisposition(contentType: string, name: string): string {
  const kind = INLINE_TYPES.has(contentType) ? 'inline' : 'attachment';
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * The files of a multipart body of content type `type`, read whole: at most `fileBytes` of files plus
 * {@link MULTIPART_OVERHEAD} (413 beyond, naming `what`); 400 when it does not read as multipart.
 */
export async function readMultipartFiles(
  request: Request,
  type: string,
  fileBytes: number,
  what: string,
): Promise<File[]> {
  const bytes = await readBodyBytes(request, fileBytes + MULTIPART_OVERHEAD, what);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': type } }).formData();
  } catch {
    throw new ParleyError('BAD_REQUEST', 'The multipart body could not be read');
  }
  return [...form.values()].filter((value): value is File => typeof value !== 'string');
}

/** Reads the one file of a multipart body; 400 when the body is not multipart or holds no file or several. */
async function readOneFile(request: Request, maxBytes: number): Promise<File> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw new ParleyError('BAD_REQUEST', 'Send the file as multipart/form-data, in a field "file"');
  }
  const files = await readMultipartFiles(request, type, maxBytes, 'Upload');
  if (files.length !== 1) {
    throw new ParleyError(
      'BAD_REQUEST',
      files.length === 0 ? 'The body holds no file' : 'Send one file per upload',
    );
  }
  const file = files[0]!;
  if (file.size > maxBytes) {
    throw new ParleyError(
      'PAYLOAD_TOO_LARGE',
      `The file exceeds the limit of ${maxBytes} bytes (ATTACHMENT_MAX_BYTES)`,
      { details: { limit: maxBytes } },
    );
  }
  if (file.size === 0) throw new ParleyError('BAD_REQUEST', 'The file is empty');
  return file;
}

/**
 * Attachments: `POST /api/messaging/channels/{channelId}/upload-media` stores one file of a channel (multipart,
 * field `file`, at most `maxBytes`; its type sniffed from its bytes and allow-listed) and answers
 * `{ id, url, contentType, name, size }`, which a message then lists in `metadata.attachments`;
 * `GET /api/messaging/attachments/{id}` serves it, as a download unless it is an image, never as something the
 * browser may run in the server's origin (`nosniff`, a sandboxing policy).
 */
export function attachmentRoutes(
  store: AttachmentStore,
  options: AttachmentRoutesOptions,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post('/api/messaging/channels/:channelId/upload-media', async (c) => {
    const channelId = parseOrThrow(uuidSchema, c.req.param('channelId'), 'channelId').toLowerCase();
    if (!(await store.channelExists(channelId))) {
      throw new ParleyError('NOT_FOUND', `Unknown channel ${channelId}`);
    }
    const file = await readOneFile(c.req.raw, options.maxBytes);
    const data = new Uint8Array(await file.arrayBuffer());
    const name = cleanFileName(file.name);
    const contentType = sniffContentType(data, file.type, name);
    if (!contentType) {
      throw new ParleyError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Only text files, JSON, PNG, JPEG, GIF, WebP, PDF, ZIP and gzip files are accepted (SVG is not, in any form)',
      );
    }
    const ref = await store.create({ id: randomUUID(), channelId, name, contentType, data });
    return c.json(success(ref), 201);
  });

  routes.get('/api/messaging/attachments/:id', async (c) => {
    const id = parseOrThrow(uuidSchema, c.req.param('id'), 'id').toLowerCase();
    const file = await store.get(id);
    if (!file) throw new ParleyError('NOT_FOUND', `Unknown attachment ${id}`);
    const textual = file.contentType.startsWith('text/') || file.contentType === 'application/json';
    // A copy: the driver may hand back a view into a larger pooled buffer (pg's Buffer).
    return c.body(new Uint8Array(file.data).buffer, 200, {
      'Content-Type': textual ? `${file.contentType}; charset=utf-8` : file.contentType,
      'Content-Length': String(file.data.byteLength),
      'Content-Disposition': contentDisposition(file.contentType, file.name),
      'X-Content-Type-Options': 'nosniff',
      // Even opened directly, nothing in it runs or loads anything.
      'Content-Security-Policy': "default-src 'none'; img-src 'self'; sandbox",
      'Cache-Control': 'private, max-age=3600',
    });
  });

  return routes;
}
