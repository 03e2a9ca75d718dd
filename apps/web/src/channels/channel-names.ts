/** The name a channel made by `New channel` has until its first message. */
export const NEW_CHANNEL_NAME = 'New chat';

/** Longest name taken from a first message: whole words up to it, then `…`. */
const MAX_NAME = 60;

/**
 * Whether a channel still has a name nobody gave it: `New chat`, or what the server calls a channel made by its
 * first message (`Chat ` and its id's first 8 characters, or those characters alone).
 */
export function isDefaultName(name: string, id: string): boolean {
  const short = id.slice(0, 8);
  return name === NEW_CHANNEL_NAME || name === short || name === `Chat ${short}`;
}

/** A channel's name as a person reads it: `New chat` for a name nobody gave it, never its id. */
export function displayName(channel: { name: string; id: string }): string {
  return isDefaultName(channel.name, channel.id) ? NEW_CHANNEL_NAME : channel.name;
}

/**
 * A name from a first message: its first line, spaces folded, whole words up to {@link MAX_NAME} characters
 * (`…` when words were left out), the same wherever it is shown.
 */
export function channelNameFrom(text: string): string {
  const line = (text.split('\n').find((each) => each.trim() !== '') ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  if (line.length <= MAX_NAME) return line || NEW_CHANNEL_NAME;
  const cut = line.slice(0, MAX_NAME);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_NAME / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}
