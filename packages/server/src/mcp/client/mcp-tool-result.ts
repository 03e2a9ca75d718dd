import type { ActionResult, HandlerCallback } from '@parley/plugin-sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readBlob } from './mcp-result-blobs';
import { redactText } from '../../redaction/redact';

/**
 * Most characters of the attachments (their `data:` URLs) one result posts into the channel: the message's
 * metadata must stay within the 256 KiB a stored JSON value may take. Those beyond are described, not posted.
 */
export const MAX_POSTED_ATTACHMENT_CHARS = 192 * 1024;

/** Most attachments one result posts (a message holds at most 64). */
const MAX_ATTACHMENTS = 16;

/** An image or binary resource of a tool's result, of an inert type, as a message attachment. */
export interface ToolAttachment {
  filename: string;
  /** What the bytes are (sniffed), never what the server declared. */
  mimeType: string;
  /** Bytes, decoded. */
  size: number;
  /** A `data:` URL of the content. */
  url: string;
}

/** What a result is mapped with. */
export interface ResultContext {
  /** The tool's name as offered (names the attachments). */
  toolName: string;
  /** Posts into the channel as the agent (the action's callback); none: attachments are only described. */
  callback?: HandlerCallback;
  /** Values never shown (the server's header and env secrets). */
  secrets: readonly string[];
}

type Block = CallToolResult['content'][number];

/**
 * A tool's result as an action's: the text blocks (and embedded text resources) joined as the result's text;
 * images, audio and binary resources whose bytes are inert (PNG, JPEG, GIF, WebP, plain text: sniffed, never the
 * server's declared type, which may call an SVG a PNG) posted into the channel as the agent's message with
 * attachments (each a `data:` URL of its sniffed type; beyond {@link MAX_POSTED_ATTACHMENT_CHARS} in all, or when
 * posting fails, described only) and named in the text, with `data.attachments` listing them (name, type, size)
 * for clients; any other blob (SVG, HTML, audio, unknown bytes) only named to the model (`mcp-result-blobs.ts`);
 * `isError` a failed result whose text the model sees as the error. Without any text block, `structuredContent`
 * is given as JSON.
 */
export async function toActionResult(
  result: CallToolResult,
  context: ResultContext,
): Promise<ActionResult> {
  const texts: string[] = [];
  const files: Omit<ToolAttachment, 'filename'>[] = [];
  for (const block of result.content ?? []) readBlock(block, texts, files);
  if (texts.length === 0 && result.structuredContent !== undefined) {
    texts.push(JSON.stringify(result.structuredContent));
  }
  const clean = (text: string) => redactText(text, context.secrets);
  if (result.isError === true) {
    const text = clean(texts.join('\n').trim());
    return { success: false, error: text || 'The tool reported an error' };
  }
  const attachments = files.slice(0, MAX_ATTACHMENTS).map((file, index) => ({
    ...file,
    filename: `${context.toolName}-${index + 1}.${extensionOf(file.mimeType)}`,
  }));
  const posted = await post(attachments, context);
  for (const attachment of attachments) {
    texts.push(
      `[attachment ${attachment.filename}: ${attachment.mimeType}, ${attachment.size} bytes, ` +
        `${posted.has(attachment) ? 'shown in the channel' : 'not shown (too large, or it could not be posted)'}]`,
    );
  }
  if (files.length > attachments.length) {
    texts.push(`[${files.length - attachments.length} more attachments left out]`);
  }
  const text = clean(texts.join('\n'));
  if (attachments.length === 0) return { success: true, text };
  return {
    success: true,
    text,
    data: {
      attachments: attachments.map((attachment) => ({
        filename: attachment.filename,
        mimeType: attachment.mimeType,
        size: attachment.size,
        shown: posted.has(attachment),
      })),
    },
  };
}

function readBlock(block: Block, texts: string[], files: Omit<ToolAttachment, 'filename'>[]): void {
  switch (block.type) {
    case 'text':
      texts.push(block.text);
      return;
    case 'image':
    case 'audio':
      keepBlob(
        readBlob(block.type === 'image' ? 'an image' : 'an audio clip', block.data, block.mimeType),
        texts,
        files,
      );
      return;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') {
        texts.push(`[resource ${resource.uri}]\n${resource.text}`);
      } else if ('blob' in resource && typeof resource.blob === 'string') {
        keepBlob(readBlob('a resource', resource.blob, resource.mimeType), texts, files);
      }
      return;
    }
    case 'resource_link':
      texts.push(`[resource link ${block.name}: ${block.uri}]`);
      return;
    default:
      texts.push(`[${(block as { type?: unknown }).type as string} content not shown]`);
  }
}

/** An inert blob becomes a file; any other is the line naming it. */
function keepBlob(
  read: ReturnType<typeof readBlob>,
  texts: string[],
  files: Omit<ToolAttachment, 'filename'>[],
): void {
  if ('blob' in read) files.push(read.blob);
  else texts.push(read.omitted);
}

/** Posts the attachments that fit into the channel, as one message of the agent; those posted. */
async function post(
  attachments: ToolAttachment[],
  context: ResultContext,
): Promise<Set<ToolAttachment>> {
  const small: ToolAttachment[] = [];
  let room = MAX_POSTED_ATTACHMENT_CHARS;
  for (const attachment of attachments) {
    if (attachment.url.length > room) continue;
    small.push(attachment);
    room -= attachment.url.length;
  }
  if (small.length === 0 || !context.callback) return new Set();
  try {
    await context.callback({
      text: `${context.toolName}: ${small.map((attachment) => attachment.filename).join(', ')}`,
      attachments: small,
    });
    return new Set(small);
  } catch {
    return new Set();
  }
}

function extensionOf(mimeType: string): string {
  const subtype = mimeType.split('/')[1]?.split(/[;+]/)[0]?.toLowerCase() ?? '';
  if (subtype === 'jpeg') return 'jpg';
  if (subtype === 'plain') return 'txt';
  if (subtype === 'mpeg') return 'mp3';
  return /^[a-z0-9.-]{1,16}$/.test(subtype) ? subtype : 'bin';
}
