import { defineRoute, errorCodeOf, isRecord, isUuid, toStorableText } from '@parley/plugin-sdk';
import { formatSize } from './format-size';

const MAX_DESCRIPTION_LENGTH = 2000;
/** Longest file name kept, in characters: what common file systems allow. */
const MAX_FILENAME_LENGTH = 255;
// Control characters (C0, DEL, C1): a CR/LF in a name would split the message's line, and none belongs in one.
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** The name the client gave its file, without what no file name needs and no database stores. */
function cleanFilename(name: string): string {
  return toStorableText(name).replace(CONTROL_CHARACTERS, '').trim();
}

/** The attachment entry the agent's message carries in `metadata.attachments`. */
export interface UploadAttachment {
  filename: string;
  size: number;
  mimeType: string;
}

function field(body: unknown, name: string): string | undefined {
  const value = isRecord(body) ? body[name] : undefined;
  if (typeof value !== 'string') return undefined;
  const text = toStorableText(value).trim();
  return text === '' ? undefined : text;
}

/**
 * `POST /upload` (multipart): one file plus the text fields `description` (optional) and `channelId` (default:
 * the agent's `NOTIFICATION_CHANNEL_ID`). The agent posts a message describing the file, with
 * `metadata.attachments: [{ filename, size, mimeType }]`, and the route answers
 * `200 { success: true, messageId, channelId, attachment }`.
 *
 * No file, a channel that is not a UUID, a file name over 255 characters or a description over 2000: 400. Over
 * the server's upload limit: 413 (the server refuses it before the handler runs). The file name loses its
 * control characters (CR, LF…), and the name and description what a database cannot store (NUL, lone
 * surrogates). The server refusing the message: 400 with its reason; posting fails otherwise: 500.
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
    const filename = cleanFilename(file.originalname) || 'file';
    if (filename.length > MAX_FILENAME_LENGTH) {
      response.status(400).json({
        success: false,
        error: `the file name must be at most ${MAX_FILENAME_LENGTH} characters`,
      });
      return;
    }
    const attachment: UploadAttachment = {
      filename,
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
      if (errorCodeOf(error) === 'BAD_REQUEST') {
        response.status(400).json({ success: false, error: (error as Error).message });
        return;
      }
      runtime.logger.error({ err: error, channelId }, 'posting an upload failed');
      response.status(500).json({ success: false, error: 'Failed to post the upload' });
    }
  },
});
