import { defineRoute } from '@parley/plugin-sdk';
import { formatSize } from './format-size';
import { isRecord } from './is-record';
import { isUuid } from './is-uuid';

const MAX_DESCRIPTION_LENGTH = 2000;

/** The attachment entry the agent's message carries in `metadata.attachments`. */
export interface UploadAttachment {
  filename: string;
  size: number;
  mimeType: string;
}

function field(body: unknown, name: string): string | undefined {
  const value = isRecord(body) ? body[name] : undefined;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * `POST /upload` (multipart): one file plus the text fields `description` (optional) and `channelId` (default:
 * the agent's `NOTIFICATION_CHANNEL_ID`). The agent posts a message describing the file, with
 * `metadata.attachments: [{ filename, size, mimeType }]`, and the route answers
 * `200 { success: true, messageId, channelId, attachment }`.
 *
 * No file, a channel that is not a UUID, or a description over 2000 characters: 400. Over the server's upload
 * limit: 413 (the server refuses it before the handler runs). Posting fails: 500.
 *
 * The bytes are not kept: storing them (object storage, a database) is each deployment's choice.
 */
export const uploadRoute = defineRoute({
  type: 'POST',
  path: '/upload',
  name: 'upload',
  isMultipart: true,
  async handler(request, response, runtime) {
    const { file } = request;
    if (!file) {
      response
        .status(400)
        .json({ success: false, error: 'No file uploaded (send it as multipart form data)' });
      return;
    }
    const channelId =
      field(request.body, 'channelId') ?? runtime.getSetting('NOTIFICATION_CHANNEL_ID');
    if (!isUuid(channelId)) {
      response.status(400).json({
        success: false,
        error: 'channelId must be a UUID (or set NOTIFICATION_CHANNEL_ID for a default)',
      });
      return;
    }
    const description = field(request.body, 'description');
    if (description && description.length > MAX_DESCRIPTION_LENGTH) {
      response.status(400).json({
        success: false,
        error: `description must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
      });
      return;
    }
    const attachment: UploadAttachment = {
      filename: file.originalname,
      size: file.size,
      mimeType: file.mimetype,
    };
    const text = `Received ${attachment.filename} (${formatSize(attachment.size)})${description ? `: ${description}` : ''}`;
    try {
      const { id } = await runtime.sendMessage({
        channelId,
        text,
        metadata: { attachments: [attachment], ...(description ? { description } : {}) },
      });
      response.json({ success: true, messageId: id, channelId, attachment });
    } catch (error) {
      runtime.logger.error({ err: error, channelId }, 'posting an upload failed');
      response.status(500).json({ success: false, error: 'Failed to post the upload' });
    }
  },
});
