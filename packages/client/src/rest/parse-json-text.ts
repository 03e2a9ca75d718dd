/** Parses a body as JSON; `undefined` when it is empty or not JSON, so the caller decides what that means. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
