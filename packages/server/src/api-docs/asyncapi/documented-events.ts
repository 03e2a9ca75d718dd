import type { AsyncApiDocument } from './create-asyncapi-document';

/**
 * The socket.io event names an AsyncAPI document describes for one direction: `receive` (what clients send)
 * or `send` (what the server emits).
 */
export function documentedEvents(
  document: AsyncApiDocument,
  action: 'send' | 'receive',
): Set<string> {
  const names = new Set<string>();
  for (const operation of Object.values(document.operations)) {
    if (operation.action !== action) continue;
    for (const { $ref } of operation.messages as { $ref: string }[]) {
      const id = $ref.split('/').at(-1) ?? '';
      const message = document.components.messages[id];
      if (typeof message?.name === 'string') names.add(message.name);
    }
  }
  return names;
}
