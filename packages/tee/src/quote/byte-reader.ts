import { quoteFormatError } from './quote-format-error';

/** A bounds-checked little-endian reader, so a truncated quote is a FORMAT error, never an out-of-range read. */
export interface ByteReader {
  readonly offset: number;
  readonly remaining: number;
  take(length: number, what: string): Uint8Array;
  u16(what: string): number;
  u32(what: string): number;
}

/** Creates a {@link ByteReader} over `bytes`. */
export function createByteReader(bytes: Uint8Array): ByteReader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  const advance = (length: number, what: string) => {
    if (offset + length > bytes.length) throw quoteFormatError(`truncated in ${what}`);
    offset += length;
    return offset - length;
  };
  return {
    get offset() {
      return offset;
    },
    get remaining() {
      return bytes.length - offset;
    },
    take(length, what) {
      const start = advance(length, what);
      return bytes.subarray(start, start + length);
    },
    u16: (what) => view.getUint16(advance(2, what), true),
    u32: (what) => view.getUint32(advance(4, what), true),
  };
}
