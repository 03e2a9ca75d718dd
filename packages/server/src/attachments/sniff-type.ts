import { constants, gunzipSync } from 'node:zlib';

/**
 * What an uploaded file is, from its first bytes, not from what the client claims: a short allow-list of
 * formats recognised by their signatures (images, PDF, archives), and text (UTF-8 without NUL bytes), whose
 * kind (JSON, Markdown, CSV…) is then taken from the claimed type or the file name. Anything else is refused,
 * and so is SVG in any form: text whose document is SVG (after a byte-order mark, white space, an XML prolog,
 * comments or a doctype; `<svg>`, `<x:svg>`, or any root in SVG's namespace), and a gzip stream (`.svgz`) whose
 * start is such a document. No dependency does this here; the signatures are the formats' own (their
 * specifications' magic numbers).
 */

/** Binary formats accepted, by signature. SVG is not among them: it is a script-capable document. */
const SIGNATURES: readonly { type: string; bytes: readonly (number | null)[] }[] = [
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  // RIFF....WEBP
  {
    type: 'image/webp',
    bytes: [0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50],
  },
  { type: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { type: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'application/gzip', bytes: [0x1f, 0x8b] },
];

/** Text types a text file may be served as (by claimed type or extension); any other text is text/plain. */
const TEXT_TYPES: Record<string, string> = {
  json: 'application/json',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  txt: 'text/plain',
  log: 'text/plain',
  html: 'text/html',
  htm: 'text/html',
  xml: 'text/xml',
  yaml: 'text/yaml',
  yml: 'text/yaml',
};
const CLAIMED_TEXT = new Set(Object.values(TEXT_TYPES));

function matches(bytes: Uint8Array, signature: readonly (number | null)[]): boolean {
  return (
    bytes.length >= signature.length &&
    signature.every((byte, index) => byte === null || bytes[index] === byte)
  );
}

/** Whether bytes are UTF-8 text: they decode strictly and hold no NUL (binary formats nearly always do). */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The content type a file is stored and served as, or undefined when it is not on the allow-list (SVG never
 * is: see {@link isSvg}). A text file
 * is `text/plain` unless its claimed type or its extension names one of the text types above (a `text/html`
 * file is still served as an attachment, never shown in the page's origin).
 */
export function sniffContentType(
  bytes: Uint8Array,
  claimedType: string,
  name: string,
): string | undefined {
  // SVG is a script-capable document whatever it is called or however it is packed.
  if (isSvg(bytes)) return undefined;
  const known = SIGNATURES.find((signature) => matches(bytes, signature.bytes));
  if (known) return known.type;
  if (!isText(bytes)) return undefined;
  const claimed = claimedType.split(';')[0]!.trim().toLowerCase();
  if (CLAIMED_TEXT.has(claimed)) return claimed;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (extension && TEXT_TYPES[extension]) ?? 'text/plain';
}

/** What a text document is, from its first element: SVG, HTML, other markup (XML…), or plain text. */
export type TextKind = 'svg' | 'html' | 'markup' | 'text';

/** How much of a text is read to tell its kind. */
const HEAD_CHARS = 64 * 1024;
/** How many compressed bytes of a gzip stream are inflated to tell what it holds (at most ~1 MB out). */
const GZIP_PEEK_BYTES = 1024;
const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';

/**
 * The kind of a text, from what a browser or an XML parser would take as its document: a byte-order mark, white
 * space, processing instructions (`<?xml …?>`), comments and a doctype are skipped; then a first element named
 * `svg` (any case, any prefix, even after an HTML doctype), or a doctype naming SVG, or a non-HTML root that
 * declares SVG's namespace, is SVG; an `html` root or an HTML doctype is HTML; any other element is markup; anything else is text. Unterminated constructs are markup.
 */
export function textKind(text: string): TextKind {
  const head = text.slice(0, HEAD_CHARS);
  let at = head.charCodeAt(0) === 0xfeff ? 1 : 0;
  let htmlDoctype = false;
  for (;;) {
    while (at < head.length && /\s/.test(head[at]!)) at += 1;
    if (head.startsWith('<?', at)) {
      const end = head.indexOf('?>', at + 2);
      if (end < 0) return 'markup';
      at = end + 2;
    } else if (head.startsWith('<!--', at)) {
      const end = head.indexOf('-->', at + 4);
      if (end < 0) return 'markup';
      at = end + 3;
    } else if (head.slice(at, at + 9).toLowerCase() === '<!doctype') {
      const close = head.indexOf('>', at);
      const open = head.indexOf('[', at);
      // An internal subset (`[ … ]`) may hold `>` of its own.
      const end = open >= 0 && (close < 0 || open < close) ? head.indexOf(']', open) : close;
      if (end < 0) return 'markup';
      const doctype = head.slice(at, end + 1).toLowerCase();
      if (doctype.includes('svg')) return 'svg';
      // Not decided yet: `<!DOCTYPE html><svg onload=…>` is still an SVG root.
      if (/^<!doctype\s+html\b/.test(doctype)) htmlDoctype = true;
      at = head.indexOf('>', end);
      if (at < 0) return 'markup';
      at += 1;
    } else {
      break;
    }
  }
  if (head[at] !== '<') return htmlDoctype ? 'html' : 'text';
  const name = /^<([A-Za-z_][\w.:-]*)/.exec(head.slice(at, at + 256))?.[1];
  if (!name) return htmlDoctype ? 'html' : 'markup';
  const local = name.slice(name.lastIndexOf(':') + 1).toLowerCase();
  if (local === 'svg') return 'svg';
  if (local === 'html' || htmlDoctype) return 'html';
  return head.includes(SVG_NAMESPACE) ? 'svg' : 'markup';
}

/** The start of a gzip stream, inflated (bounded), as text; undefined when it does not inflate. */
function gzippedText(bytes: Uint8Array): string | undefined {
  try {
    // A truncated stream inflates as far as it goes (a sync flush, not an error).
    const start = gunzipSync(bytes.subarray(0, GZIP_PEEK_BYTES), {
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    return new TextDecoder('utf-8').decode(start);
  } catch {
    return undefined;
  }
}

/** Whether bytes are SVG: SVG text, or a gzip stream that starts with it (`.svgz`). */
export function isSvg(bytes: Uint8Array): boolean {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    const inner = gzippedText(bytes);
    return inner !== undefined && textKind(inner) === 'svg';
  }
  return isText(bytes) && textKind(new TextDecoder('utf-8').decode(bytes)) === 'svg';
}

/** The types a file from elsewhere (an MCP server's result) may be shown as: inert wherever it is shown. */
export type InertType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'text/plain';
const INERT_IMAGES = new Set<string>(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * What bytes are, when they are of an inert type: a PNG, JPEG, GIF or WebP image by its signature, or UTF-8
 * text that is not markup (no SVG, HTML or XML) as `text/plain`; undefined for anything else, whatever it claims.
 */
export function sniffInertType(bytes: Uint8Array): InertType | undefined {
  const known = SIGNATURES.find((signature) => matches(bytes, signature.bytes));
  if (known) return INERT_IMAGES.has(known.type) ? (known.type as InertType) : undefined;
  if (!isText(bytes)) return undefined;
  return textKind(new TextDecoder('utf-8').decode(bytes)) === 'text' ? 'text/plain' : undefined;
}

/** What bytes are, in a few words for the model (never their content): `SVG`, `HTML`, `image/png`… */
export function describeBytes(bytes: Uint8Array): string {
  if (isSvg(bytes)) return 'SVG';
  const known = SIGNATURES.find((signature) => matches(bytes, signature.bytes));
  if (known) return known.type;
  if (!isText(bytes)) return 'binary data';
  const kind = textKind(new TextDecoder('utf-8').decode(bytes));
  return kind === 'html' ? 'HTML' : kind === 'markup' ? 'markup (XML or HTML)' : 'text';
}

/** Whether a stored type is text the model may read inline (text/*, JSON). */
export function isReadableText(contentType: string): boolean {
  return contentType.startsWith('text/') || contentType === 'application/json';
}
