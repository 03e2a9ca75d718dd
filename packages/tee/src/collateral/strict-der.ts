import { collateralError } from './collateral-error';

/** The universal tag numbers that are constructed (SEQUENCE, SET); DER encodes every other one primitive. */
const CONSTRUCTED_UNIVERSAL = new Set([0x10, 0x11]);

/** Whether a tag byte is one DER allows: low tag number, and a universal tag in its one form. */
function isDerTag(tag: number): boolean {
  // 0x1f: a high tag number, which X.509 never uses; 0x00: BER's end-of-contents.
  if ((tag & 0x1f) === 0x1f || tag === 0) return false;
  const universal = (tag & 0xc0) === 0;
  const constructed = (tag & 0x20) !== 0;
  return !universal || constructed === CONSTRUCTED_UNIVERSAL.has(tag & 0x1f);
}

/** Reads a DER length at `offset`: its value and where the content starts, or undefined when not minimal. */
function lengthAt(
  bytes: Uint8Array,
  offset: number,
): { length: number; start: number } | undefined {
  const first = bytes[offset];
  if (first === undefined) return undefined;
  if (first < 0x80) return { length: first, start: offset + 1 };
  const count = first & 0x7f;
  // 0x80 is BER's indefinite length; DER also forbids a leading zero byte and the long form below 128.
  if (count === 0 || count > 4 || bytes[offset + 1] === 0) return undefined;
  let length = 0;
  for (let index = 1; index <= count; index += 1) {
    const byte = bytes[offset + index];
    if (byte === undefined) return undefined;
    length = length * 256 + byte;
  }
  return length < 0x80 ? undefined : { length, start: offset + 1 + count };
}

/** Checks the elements in `bytes[offset, end)` one after the other; false at the first that is not DER. */
function elementsAreDer(bytes: Uint8Array, offset: number, end: number): boolean {
  let at = offset;
  while (at < end) {
    const tag = bytes[at]!;
    // A constructed string (0x23, 0x24…) is BER, not DER; a primitive SEQUENCE (0x10) is no encoding at all.
    if (!isDerTag(tag)) return false;
    const constructed = (tag & 0x20) !== 0;
    const length = lengthAt(bytes, at + 1);
    if (!length || length.start + length.length > end) return false;
    const next = length.start + length.length;
    if (constructed && !elementsAreDer(bytes, length.start, next)) return false;
    at = next;
  }
  return at === end;
}

/**
 * Refuses anything but one strictly encoded DER element spanning all of `bytes`: definite, minimal lengths
 * (no long form below 128, no leading zero length byte), every constructed element exactly filled by its
 * children, SEQUENCE and SET constructed and every other universal type primitive, nothing after the element.
 * asn1js decodes BER and accepts all of these; a CRL that a verifier reads must have one encoding only.
 *
 * @throws ParleyError `COLLATERAL_FORMAT`.
 */
export function assertStrictDer(bytes: Uint8Array, what: string): void {
  const length = lengthAt(bytes, 1);
  if (bytes.length < 2 || !length || length.start + length.length !== bytes.length) {
    throw collateralError('COLLATERAL_FORMAT', `${what} is not one DER element`);
  }
  if (!elementsAreDer(bytes, 0, bytes.length)) {
    throw collateralError('COLLATERAL_FORMAT', `${what} is not strict DER`);
  }
}
