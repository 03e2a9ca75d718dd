import { createHash } from 'node:crypto';
import { uuidFromBytes } from '@parley/core';

/**
 * A name-based UUID (version 5, RFC 9562: SHA-1 of the namespace's bytes and the name): the same name in the
 * same namespace always gives the same id, so a retried delivery maps to the message it already stored.
 * Written over node:crypto (a dozen lines) rather than taken from a UUID library, so that the SDK adds no
 * dependency to every plugin.
 *
 * @example
 * const messageId = uuidV5(`github:${deliveryId}`, MY_NAMESPACE);
 */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  return uuidFromBytes(hash, 5);
}
