import { z } from 'zod';

/**
 * An uploaded file as the upload (`POST /api/messaging/channels/{channelId}/upload-media`) answers it and a
 * message's `metadata.attachments` lists it.
 */
export const attachmentRefSchema = z.object({
  id: z.string(),
  url: z.string().describe('Where it is downloaded: `/api/messaging/attachments/{id}`.'),
  contentType: z.string().describe('The type sniffed from its bytes (not the one claimed).'),
  name: z.string(),
  size: z.number().int(),
});

/** @see attachmentRefSchema */
export type AttachmentRef = z.infer<typeof attachmentRefSchema>;
