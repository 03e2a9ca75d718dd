/** Where the page keeps what it remembers. The API key lives in sessionStorage: it ends with the tab. */
const KEYS = {
  apiKey: 'parley.apiKey',
  entityId: 'parley.entityId',
  name: 'parley.name',
  recent: 'parley.recentChannels',
  mode: 'parley.mode',
} as const;

function read(storage: Storage, key: string): string | undefined {
  try {
    return storage.getItem(key) ?? undefined;
  } catch {
    // Storage can be disabled (private mode, policies): the page still works, it just forgets.
    return undefined;
  }
}

function write(storage: Storage, key: string, value: string | undefined): void {
  try {
    if (value === undefined || value === '') storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // See read().
  }
}

/** The API key for a server with `SERVER_AUTH_TOKEN`, kept for this tab only. */
export const apiKeySetting = {
  get: () => read(sessionStorage, KEYS.apiKey),
  set: (value: string | undefined) => write(sessionStorage, KEYS.apiKey, value),
};

/** The transport the settings panel picked ("Send through"), remembered across visits. */
export const modeSetting = {
  get: (): 'socket' | 'stream' | 'sync' | undefined => {
    const value = read(localStorage, KEYS.mode);
    return value === 'socket' || value === 'stream' || value === 'sync' ? value : undefined;
  },
  set: (value: string) => write(localStorage, KEYS.mode, value),
};

/** Who this browser is in the rooms: a stable entity id and a display name. */
export function identity(): { entityId: string; name: string } {
  let entityId = read(localStorage, KEYS.entityId);
  if (!entityId) {
    entityId = `user-${crypto.randomUUID()}`;
    write(localStorage, KEYS.entityId, entityId);
  }
  const name = read(localStorage, KEYS.name) ?? `Guest ${entityId.slice(5, 9)}`;
  return { entityId, name };
}

/** Remembers the display name. */
export function saveName(name: string): void {
  write(localStorage, KEYS.name, name.trim() || undefined);
}

/** Where the recent-channel list of `person` (a signed-in person's entity id; none: this browser's) is kept. */
function recentKey(person: string | undefined): string {
  return person ? `${KEYS.recent}:${person}` : KEYS.recent;
}

/** Reads the raw recent-channel list of `person` (see {@link recentKey}). */
export function readRecent(person?: string): unknown {
  try {
    return JSON.parse(read(localStorage, recentKey(person)) ?? '[]') as unknown;
  } catch {
    return [];
  }
}

/** Stores the recent-channel list of `person`. */
export function writeRecent(value: unknown, person?: string): void {
  write(localStorage, recentKey(person), JSON.stringify(value));
}
