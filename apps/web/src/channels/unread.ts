/** When this browser last saw each channel's newest message: channel id → ISO time. */
export type SeenMap = Record<string, string>;

const KEY = 'parley.channelSeen';
/** Channels remembered at most (the oldest seen are forgotten first). */
const MAX_SEEN = 200;

/** A stored value as a seen map, keeping only string → parseable time entries. */
export function parseSeen(value: unknown): SeenMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const entries = Object.entries(value as Record<string, unknown>).filter(
    (entry): entry is [string, string] =>
      typeof entry[1] === 'string' && !Number.isNaN(Date.parse(entry[1])),
  );
  return Object.fromEntries(entries.slice(-MAX_SEEN));
}

/** Whether a channel has messages newer than the last time it was seen (never seen: any message is new). */
export function isUnread(
  seen: SeenMap,
  channelId: string,
  lastMessageAt: string | null | undefined,
): boolean {
  if (!lastMessageAt) return false;
  const at = Date.parse(lastMessageAt);
  if (Number.isNaN(at)) return false;
  const last = seen[channelId];
  return last === undefined || at > Date.parse(last);
}

/** The map with `channelId` seen up to `at` (never moving back), bounded to {@link MAX_SEEN} entries. */
export function markSeen(seen: SeenMap, channelId: string, at: string): SeenMap {
  const before = seen[channelId];
  if (before !== undefined && Date.parse(before) >= Date.parse(at)) return seen;
  const { [channelId]: _old, ...rest } = seen;
  const entries = Object.entries({ ...rest, [channelId]: at });
  return Object.fromEntries(entries.slice(-MAX_SEEN));
}

export function readSeen(): SeenMap {
  try {
    return parseSeen(JSON.parse(localStorage.getItem(KEY) ?? '{}'));
  } catch {
    return {};
  }
}

export function writeSeen(seen: SeenMap): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(seen));
  } catch {
    // Storage off: unread marks last as long as the page.
  }
}
