import { ParleyError } from '@parley/core';

/** The kinds of document knowledge reads; each is turned into plain text before it is split. */
export type KnowledgeKind = 'text' | 'markdown' | 'html' | 'json' | 'pdf';

const BY_EXTENSION: Record<string, KnowledgeKind> = {
  txt: 'text',
  text: 'text',
  md: 'markdown',
  markdown: 'markdown',
  mdx: 'markdown',
  html: 'html',
  htm: 'html',
  json: 'json',
  pdf: 'pdf',
};

const BY_TYPE: Record<string, KnowledgeKind> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/json': 'json',
  'application/pdf': 'pdf',
};

/** What a file names of types knowledge reads, for the 415 message. */
export const SUPPORTED_KINDS = 'text, Markdown, HTML, JSON or PDF (.txt, .md, .html, .json, .pdf)';

/**
 * The kind of a document from its declared content type, else its file name's extension; undefined when it is
 * none knowledge reads. A PDF is also known by its `%PDF-` signature, whatever it is called.
 */
export function kindOf(
  contentType: string | undefined,
  name: string | undefined,
  bytes?: Uint8Array,
): KnowledgeKind | undefined {
  if (bytes && bytes.length >= 5 && new TextDecoder().decode(bytes.subarray(0, 5)) === '%PDF-')
    return 'pdf';
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const byType = BY_TYPE[type];
  if (byType) return byType;
  const extension = (name ?? '').toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  const byExtension = extension ? BY_EXTENSION[extension] : undefined;
  if (byExtension) return byExtension;
  // Unnamed text from JSON bodies and `application/octet-stream` files called `*.txt` were handled above.
  return type === '' || type.startsWith('text/') ? 'text' : undefined;
}

/** Reads a text file as UTF-8; a file that is not (a binary sent as text) is refused rather than stored as noise. */
function utf8(bytes: Uint8Array, name: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ParleyError(
      'UNSUPPORTED_MEDIA_TYPE',
      `${name} is not UTF-8 text; send ${SUPPORTED_KINDS}`,
    );
  }
}

/** A JSON document as text: its string values with their key paths, so that names and numbers are searchable. */
function jsonText(value: unknown, path: string, out: string[], depth: number): void {
  if (out.length > 100_000 || depth > 64) return;
  if (Array.isArray(value))
    value.forEach((item, index) => jsonText(item, `${path}[${index}]`, out, depth + 1));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      jsonText(item, path ? `${path}.${key}` : key, out, depth + 1);
  } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.push(path ? `${path}: ${String(value)}` : String(value));
  }
}

/**
 * A document's plain text: HTML through html-to-text (scripts and styles dropped, links kept as text), PDF
 * through unpdf (pdf.js's serverless build: pure JavaScript, no native build, no download), JSON as `key.path:
 * value` lines, text and Markdown as they are. Throws 4xx ParleyErrors for a file that cannot be read.
 */
export async function extractText(
  bytes: Uint8Array,
  kind: KnowledgeKind,
  name: string,
): Promise<string> {
  switch (kind) {
    case 'text':
    case 'markdown':
      return utf8(bytes, name);
    case 'html': {
      // Imported by the first HTML document, not at start-up (see docs/decisions.md).
      const { convert } = await import('html-to-text');
      return convert(utf8(bytes, name), {
        wordwrap: false,
        selectors: [
          { selector: 'a', options: { ignoreHref: true } },
          { selector: 'img', format: 'skip' },
        ],
      });
    }
    case 'json': {
      let value: unknown;
      try {
        value = JSON.parse(utf8(bytes, name));
      } catch (error) {
        if (error instanceof ParleyError) throw error;
        throw new ParleyError('BAD_REQUEST', `${name} is not valid JSON`);
      }
      const lines: string[] = [];
      jsonText(value, '', lines, 0);
      return lines.join('\n');
    }
    case 'pdf': {
      const { extractText: pdfText, getDocumentProxy } = await import('unpdf');
      try {
        const pdf = await getDocumentProxy(new Uint8Array(bytes));
        try {
          const { text } = await pdfText(pdf, { mergePages: true });
          return text;
        } finally {
          await (pdf as { destroy?: () => Promise<void> }).destroy?.();
        }
      } catch {
        throw new ParleyError('BAD_REQUEST', `${name} could not be read as a PDF`);
      }
    }
  }
}
