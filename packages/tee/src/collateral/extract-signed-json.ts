/**
 * Finds the raw text of the object at `"key":` in a PCS response body. Intel signs those exact bytes, so the
 * object must not be re-serialised; this scans for the matching brace, skipping braces inside strings.
 * Hand-written because no JSON parser reports source positions; the scan is 20 lines and bounded by the input.
 */
export function extractSignedJson(text: string, key: string): string | undefined {
  const marker = `"${key}":`;
  const at = text.indexOf(marker);
  const start = at < 0 ? -1 : text.indexOf('{', at + marker.length);
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}' && --depth === 0) return text.slice(start, index + 1);
  }
  return undefined;
}
