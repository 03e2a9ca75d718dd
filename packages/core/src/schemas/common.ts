import { z } from 'zod';

/**
 * A UUID in the 8-4-4-4-12 hex form (any version), normalised to lower case so that room ids compare
 * exactly whatever case a client used.
 */
export const uuidSchema = z
  .guid({ message: 'must be a UUID' })
  .transform((value) => value.toLowerCase());

/** An entity, author or sender id: free-form, but never empty. */
export const entityIdSchema = z.string().trim().min(1, 'must not be empty').max(256);

/** Maximum length of one message's text, in characters. */
export const MAX_TEXT_LENGTH = 100_000;

/** Message text: may be empty for attachment-only messages, bounded in length. */
export const messageTextSchema = z.string().max(MAX_TEXT_LENGTH);

/** Free-form JSON object metadata. */
export const metadataSchema = z.record(z.string(), z.unknown());

/** An attachment description carried in message metadata. */
export const attachmentSchema = z.looseObject({
  filename: z.string(),
  size: z.number().int().nonnegative(),
  mimeType: z.string(),
});

/** @see attachmentSchema */
export type Attachment = z.infer<typeof attachmentSchema>;
