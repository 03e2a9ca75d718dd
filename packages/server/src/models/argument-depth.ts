/**
 * Deepest arguments a call may have. Deeper ones are a tool error: a value nested 100,000 deep parses (V8's
 * JSON.parse does not recurse) but overflows the stack of everything that walks it after (cloning, checking,
 * storing, sending it back to the model).
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** Whether `value` has an object or array deeper than `limit` (without recursion: any depth is safe to ask). */
export function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      stack.push([child, depth + 1]);
    }
  }
  return false;
}
