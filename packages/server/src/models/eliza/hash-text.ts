/**
 * FNV-1a (32-bit) of a string's UTF-16 code units. The offline model picks its variants and chunk boundaries
 * from this instead of `Math.random`, so the same conversation always gets the same reply.
 */
export function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
