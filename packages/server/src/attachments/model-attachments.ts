import type { StoredMessage } from '@parley/core';
import { formatBytes } from './format-bytes';
import type { AttachmentStore } from './attachment-store';

/** Bounds of what the model reads of a message's attachments. */
export const MODEL_ATTACHMENT_LIMITS = {
  /** Attachments of one message described at most. */
  perMessage: 16,
  /** Bytes of one text attachment put in the prompt at most (the rest is said to be cut). */
  textBytes: 32 * 1024,
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Listed {
  id: string;
  name: string;
  contentType: string;
  /** Unknown for elizaOS's `Media` entries, which carry none. */
  size?: number;
}

/**
 * A message's `metadata.attachments` entries that name an uploaded file by id and say its type: Parley's
 * upload answer (`{id, name, contentType, size}`) or elizaOS's `Media` (`{id, url, contentType, title?}`, its
 * name from `title`). Which file it is, and whether the model may read it, is decided by the id alone.
 */
export function listedAttachments(metadata: unknown): Listed[] {
  const list = (metadata as { attachments?: unknown } | null | undefined)?.attachments;
  if (!Array.isArray(list)) return [];
  const listed: Listed[] = [];
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { id, name, title, contentType, size } = entry as Record<string, unknown>;
    if (typeof id !== 'string' || !UUID.test(id) || typeof contentType !== 'string') continue;
    const named =
      typeof name === 'string' ? name : typeof title === 'string' ? title : 'attachment';
    listed.push({
      id,
      name: named.slice(0, 256),
      contentType: contentType.slice(0, 256),
      ...(typeof size === 'number' && { size }),
    });
    if (listed.length === MODEL_ATTACHMENT_LIMITS.perMessage) break;
  }
  return listed;
}

/** How the model reads one attachment: text files inline (bounded), other files by name, type and size. */
export function describeAttachment(file: Listed, text: Uint8Array | undefined): string {
  const sized = file.size === undefined ? '' : `, ${formatBytes(file.size)}`;
  const head = `[Attachment: ${file.name} (${file.contentType}${sized})]`;
  if (!text) return `${head} — its content is not shown to you.`;
  // A cut may fall inside a character: the decoder replaces it instead of failing.
  const body = new TextDecoder('utf-8').decode(text);
  const cut =
    file.size === undefined
      ? text.byteLength >= MODEL_ATTACHMENT_LIMITS.textBytes
        ? `\n[… cut: first ${text.byteLength} bytes]`
        : ''
      : file.size > text.byteLength
        ? `\n[… cut: first ${text.byteLength} bytes of ${file.size}]`
        : '';
  return `${head}\n${body}${cut}\n[End of ${file.name}]`;
}

/**
 * The history as the model reads it: each user message with attachments gets them after its text, text files
 * (text/*, JSON) inline up to {@link MODEL_ATTACHMENT_LIMITS}.textBytes, other files named with type and size.
 * Only attachments stored in the message's own channel are read. Agent messages are left as they are.
 */
export async function withAttachments(
  store: AttachmentStore,
  history: readonly StoredMessage[],
  agentId: string,
): Promise<StoredMessage[]> {
  return Promise.all(
    history.map(async (message) => {
      const files = message.author_id === agentId ? [] : listedAttachments(message.metadata);
      if (files.length === 0) return message;
      const texts = await store.texts(
        message.channel_id,
        files.map((file) => file.id.toLowerCase()),
        MODEL_ATTACHMENT_LIMITS.textBytes,
      );
      const described = files.map((file) =>
        describeAttachment(file, texts.get(file.id.toLowerCase())),
      );
      return { ...message, content: `${message.content}\n\n${described.join('\n\n')}` };
    }),
  );
}
