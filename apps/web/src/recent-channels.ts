/** A channel this browser used, newest first in the list. */
export interface RecentChannel {
  id: string;
  agentId?: string;
  /** The first words sent, to tell channels apart. */
  title?: string;
  /** When it was last opened (ms since the epoch). */
  openedAt: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string is a channel id (a UUID). */
export function isChannelId(value: string): boolean {
  return UUID.test(value.trim());
}

/** The stored list, keeping only well-formed entries (storage is user-editable). */
export function parseRecent(value: unknown): RecentChannel[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (entry): entry is RecentChannel =>
      typeof entry === 'object' &&
      entry !== null &&
      typeof (entry as RecentChannel).id === 'string' &&
      isChannelId((entry as RecentChannel).id) &&
      typeof (entry as RecentChannel).openedAt === 'number',
  );
}

/**
 * The list with `channel` moved to the front (merged with what was known of it), at most `limit` long.
 */
export function rememberChannel(
  list: readonly RecentChannel[],
  channel: RecentChannel,
  limit = 12,
): RecentChannel[] {
  const id = channel.id.toLowerCase();
  const known = list.find((entry) => entry.id === id);
  const merged: RecentChannel = {
    ...known,
    ...Object.fromEntries(Object.entries(channel).filter(([, value]) => value !== undefined)),
    id,
  } as RecentChannel;
  return [merged, ...list.filter((entry) => entry.id !== id)].slice(0, limit);
}
