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
  size: number;
}

/** A message's `metadata.attachments` entries that name an id, a name, a type and a size. */
export function listedAttachments(metadata: unknown): Listed[] {
  const list = (metadata as { attachments?: unknown } | null | undefined)?.attachments;
  if (!Array.isArray(list)) return [];
  return list
    .filter(
      (entry): entry is Listed =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as Listed).id === 'string' &&
        UUID.test((entry as Listed).id) &&
        typeof (entry as Listed).name === 'string' &&
        typeof (entry as Listed).contentType === 'string' &&
        typeof (entry as Listed).size === 'number',
    )
    .slice(0, MODEL_ATTACHMENT_LIMITS.perMessage);
}

/** How the model reads one attachment: text files inline (bounded), other files by name, type and size. */
export function describeAttachment(file: Listed, text: Uint8Array | undefined): string {
  const head = `[Attachment: ${file.name} (${file.contentType}, ${formatBytes(file.size)})]`;
  if (!text) return `${head} — its content is not shown to you.`;
  // A cut may fall inside a character: the decoder replaces it instead of failing.
  const body = new TextDecoder('utf-8').decode(text);
  const cut =
    file.size > text.byteLength ? `\n[… cut: first ${text.byteLength} bytes of ${file.size}]` : '';
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
