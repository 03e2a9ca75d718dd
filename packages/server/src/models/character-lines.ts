/**
 * The text lines of a character field written as one string or a list of them (`bio`, `lore`, `style.chat`,
 * `postExamples`…), trimmed, with empty and non-text entries left out: a character given to `createServer` in
 * code is not validated, so any value may be there.
 */
export function characterLines(value: unknown): string[] {
  const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return list
    .filter((line): line is string => typeof line === 'string')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
