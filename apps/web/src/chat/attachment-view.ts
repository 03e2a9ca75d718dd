import type { AttachmentRef } from '@parley/core';

/** At most this many attachments are read from one message's metadata. */
const MAX_ATTACHMENTS = 16;

/** The well-formed attachments of a message's metadata (anything else is skipped: metadata is anyone's JSON). */
export function attachmentsOf(metadata: unknown): AttachmentRef[] {
  if (typeof metadata !== 'object' || metadata === null) return [];
  const list = (metadata as { attachments?: unknown }).attachments;
  if (!Array.isArray(list)) return [];
  return list
    .filter(
      (entry): entry is AttachmentRef =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as AttachmentRef).id === 'string' &&
        typeof (entry as AttachmentRef).url === 'string' &&
        // Only this server's attachment route: a message cannot point the page anywhere else.
        (entry as AttachmentRef).url.startsWith('/api/messaging/attachments/') &&
        typeof (entry as AttachmentRef).name === 'string' &&
        typeof (entry as AttachmentRef).contentType === 'string' &&
        typeof (entry as AttachmentRef).size === 'number',
    )
    .slice(0, MAX_ATTACHMENTS);
}

/** A size for people: `512 B`, `1.5 KiB`, `3.2 MiB`. */
export function formatBytes(size: number): string {
  if (!Number.isFinite(size) || size < 0) return '';
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}
