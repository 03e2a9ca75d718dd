/**
 * Parses the content of an `<actions>` tag: names separated by commas, trimmed, empty entries dropped.
 *
 * @example
 * parseActions(' REPLY, FOLLOW_ROOM '); // ['REPLY', 'FOLLOW_ROOM']
 */
export function parseActions(content: string): string[] {
  return content
    .split(',')
    .map((action) => action.trim())
    .filter((action) => action !== '');
}

/** Whether the actions are a plain reply, the only case where the `<text>` goes straight to the client. */
export function isPlainReply(actions: readonly string[]): boolean {
  return actions.length === 1 && actions[0] === 'REPLY';
}
