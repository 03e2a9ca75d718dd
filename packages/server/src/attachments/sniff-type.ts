/**
 * What an uploaded file is, from its first bytes, not from what the client claims: a short allow-list of
 * formats recognised by their signatures (images, PDF, archives), and text (UTF-8 without NUL bytes), whose
 * kind (JSON, Markdown, CSV…) is then taken from the claimed type or the file name. Anything else is refused.
 * No dependency does this here; the signatures are the formats' own (their specifications' magic numbers).
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
 * The content type a file is stored and served as, or undefined when it is not on the allow-list. A text file
 * is `text/plain` unless its claimed type or its extension names one of the text types above (a `text/html`
 * file is still served as an attachment, never shown in the page's origin).
 */
export function sniffContentType(
  bytes: Uint8Array,
  claimedType: string,
  name: string,
): string | undefined {
  const known = SIGNATURES.find((signature) => matches(bytes, signature.bytes));
  if (known) return known.type;
  if (!isText(bytes)) return undefined;
  const claimed = claimedType.split(';')[0]!.trim().toLowerCase();
  if (CLAIMED_TEXT.has(claimed)) return claimed;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (extension && TEXT_TYPES[extension]) ?? 'text/plain';
}

/** Whether a stored type is text the model may read inline (text/*, JSON). */
export function isReadableText(contentType: string): boolean {
  return contentType.startsWith('text/') || contentType === 'application/json';
}
