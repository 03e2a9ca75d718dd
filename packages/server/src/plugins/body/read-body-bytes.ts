import { ParleyError } from '@parley/core';

function tooLarge(limit: number, what: string): ParleyError {
  return new ParleyError('PAYLOAD_TOO_LARGE', `${what} exceeds the limit of ${limit} bytes`, {
    details: { limit },
  });
}

/**
 * Reads a request body into memory, at most `limit` bytes. A declared `content-length` over the limit is
 * refused before reading; without one (chunked uploads) the bytes are counted as they arrive and reading stops
 * at the limit, so a client cannot make the server buffer more than `limit`.
 *
 * @throws ParleyError `PAYLOAD_TOO_LARGE`.
 */
export async function readBodyBytes(
  request: Request,
  limit: number,
  what = 'Request body',
): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit, what);
  if (!request.body) return new Uint8Array(0);

  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit, what);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
