/** Whether a UTF-16 code unit is the first half of a surrogate pair. */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Whether a UTF-16 code unit is the second half of a surrogate pair. */
export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Moves a cut point one unit to the left when the text before it would end with the first half of a surrogate
 * pair, so that a pair split between two chunks reaches the client in one piece.
 */
export function surrogateSafeCut(text: string, index: number): number {
  return index > 0 && isHighSurrogate(text.charCodeAt(index - 1)) ? index - 1 : index;
}
