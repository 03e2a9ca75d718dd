import { apiSuccessSchema, attachmentRefSchema, uuidSchema } from '@parley/core';
import type { DocumentedOperation } from './built-in-operations';

const base = { tag: 'messaging', auth: ['apiKey'] as const };

/**
 * Attachments (`http/routes/attachment-routes.ts`): a file uploaded to a channel, listed by the message that
 * sends it (`metadata.attachments`), read by the agent (text inline, other files by name, type and size).
 */
export const ATTACHMENT_OPERATIONS: readonly DocumentedOperation[] = [
  {
    ...base,
    method: 'post',
    path: '/api/messaging/channels/:channelId/upload-media',
    operationId: 'uploadChannelMedia',
    summary: 'Upload a file to a channel',
    description:
      "elizaOS's upload path. A `multipart/form-data` body with one file (field `file`) of at most " +
      '`ATTACHMENT_MAX_BYTES` (10 MiB by default; 413 over it). Its type is sniffed from its bytes and must ' +
      'be text (UTF-8; JSON, Markdown, CSV…), PNG, JPEG, GIF, WebP, PDF, ZIP or gzip (415 otherwise). The ' +
      'channel must exist (404). Send a message with the answer in `metadata.attachments` and the agent reads it.',
    pathParams: { channelId: uuidSchema },
    multipartFile: 'The file, in the field `file` (one file per upload).',
    responses: {
      201: { description: 'The stored file.', json: apiSuccessSchema(attachmentRefSchema) },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/messaging/attachments/:id',
    operationId: 'getAttachment',
    summary: 'Download an attachment',
    description:
      'The stored bytes with their sniffed type, `X-Content-Type-Options: nosniff`, a sandboxing ' +
      '`Content-Security-Policy` and `Content-Disposition: attachment` (images: `inline`): a text/html file is ' +
      'downloaded, never shown in the server’s origin.',
    pathParams: { id: uuidSchema },
    responses: { 200: { description: 'The file.', text: 'application/octet-stream' } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
];
