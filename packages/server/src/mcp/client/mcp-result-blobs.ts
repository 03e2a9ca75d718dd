import { describeBytes, sniffInertType } from '../../attachments/sniff-type';

/** A blob of a tool's result whose bytes are of an inert type: what may become a message attachment. */
export interface InertBlob {
  /** What the bytes are (sniffed), never what the server declared. */
  mimeType: string;
  /** Bytes, decoded. */
  size: number;
  /** A `data:` URL of exactly the bytes sniffed. */
  url: string;
}

/** The types a blob may be shown as, for the line naming one that is not. */
const INERT_TYPES = 'PNG, JPEG, GIF and WebP images and plain text';

/**
 * A blob (base64) of an MCP server's result, `what` it is (`an image`, `a resource`…) and the type the server
 * declared: an {@link InertBlob} typed from its bytes when they are a PNG, JPEG, GIF or WebP image or plain text
 * (not SVG, HTML or other markup, whatever the declared type says); otherwise a line that names it to the model
 * without its content, e.g. `[omitted: an image declared image/svg+xml, 79 bytes of SVG; …]`.
 */
export function readBlob(
  what: string,
  base64: string,
  declared: string | undefined,
): { blob: InertBlob } | { omitted: string } {
  const bytes = Buffer.from(base64, 'base64');
  const type = sniffInertType(bytes);
  if (type) {
    // Encoded again: the URL holds exactly the bytes that were sniffed, whatever else the string held.
    const url = `data:${type};base64,${bytes.toString('base64')}`;
    return { blob: { mimeType: type, size: bytes.length, url } };
  }
  return {
    omitted:
      `[omitted: ${what} declared ${declaredType(declared)}, ${bytes.length} bytes of ` +
      `${describeBytes(bytes)}; only ${INERT_TYPES} are attached]`,
  };
}

/** A declared MIME type fit to show the model: a well-formed `type/subtype`, or words saying it is not one. */
function declaredType(declared: string | undefined): string {
  const type = declared?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!type) return 'without a type';
  return /^[a-z0-9][a-z0-9.+-]{0,63}\/[a-z0-9][a-z0-9.+-]{0,63}$/.test(type)
    ? type
    : 'with a malformed type';
}
