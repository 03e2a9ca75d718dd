/**
 * UUIDs the server makes for itself (stored messages, replies, scheduled messages) are version 8 ("custom",
 * RFC 9562) with random bits; ids that clients choose may be any other version. So a client-chosen id can never
 * take the place of an id the server has handed out or is about to use.
 */
const RESERVED_VERSION = '8';

/** A new random UUID of the server's reserved version. */
export function reservedUuid(): string {
  const random = globalThis.crypto.randomUUID();
  return `${random.slice(0, 14)}${RESERVED_VERSION}${random.slice(15)}`;
}

/** Whether a UUID is of the version the server reserves for its own ids. */
export function isReservedUuid(uuid: string): boolean {
  return uuid.charAt(14) === RESERVED_VERSION;
}
