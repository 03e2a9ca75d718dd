import { createHash } from 'node:crypto';

/**
 * Namespace of agent ids derived from names. Fixed forever: changing it would change every derived agent id.
 */
export const AGENT_ID_NAMESPACE = '4f1d6c2e-7a53-5b8e-9c0d-2e6f1a3b5c7d';

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** RFC 9562 UUID version 5 (SHA-1, name-based) of `name` in `namespace`. */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

/** The stable id of an agent: its character's `id`, else a UUID v5 of its name. */
export function agentIdOf(character: { id?: string; name: string }): string {
  return character.id?.toLowerCase() ?? uuidV5(character.name, AGENT_ID_NAMESPACE);
}
