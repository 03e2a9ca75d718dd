import { Buffer } from 'node:buffer';

/** Whether a value is binary data a response can send as is. */
export function isBinary(value: unknown): value is Uint8Array | ArrayBuffer {
  return value instanceof Uint8Array || value instanceof ArrayBuffer;
}

/**
 * The bytes of a chunk given to `write` or `end`: a string in `encoding` (default UTF-8), or binary data.
 *
 * @throws TypeError for anything else, as Node's `write` does.
 */
export function toBodyBytes(chunk: unknown, encoding?: unknown): Buffer {
  if (typeof chunk === 'string') {
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  }
  if (chunk instanceof Uint8Array)
    return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return Buffer.from(chunk);
  throw new TypeError('A response chunk must be a string, a Buffer or a Uint8Array');
}
