import type { ChannelList } from './channel-list';
import { createChannel, renameChannel, type ServerChannel } from './channels-api';

/** The name a channel made by `New channel` has until its first message. */
export const NEW_CHANNEL_NAME = 'New chat';

/** Makes a channel on the server (listed at once); rejects with the server's refusal. */
export async function makeChannel(
  channels: ChannelList,
  id: string,
  agentId: string | undefined,
): Promise<void> {
  channels.upsert(await createChannel({ id, name: NEW_CHANNEL_NAME, agentId }));
}

/** Files go to an existing channel: a channel not made yet (no message so far) is made now, named `name`. */
export async function ensureChannel(
  channels: ChannelList,
  id: string,
  name: string,
  agentId: string | undefined,
): Promise<void> {
  if (channels.find(id)) return;
  const made = await createChannel({ id, name: name.slice(0, 40), agentId }).catch(
    () => undefined, // 409: it exists already.
  );
  if (made) channels.upsert(made);
}

/**
 * A channel still called by its default name (`New chat`, or its id's first 8 characters) takes the first words
 * sent in it; resolves with the renamed channel, else undefined.
 */
export async function nameAfterFirstWords(
  channels: ChannelList,
  id: string,
  text: string,
): Promise<ServerChannel | undefined> {
  const channel = channels.find(id);
  if (!channel || (channel.name !== NEW_CHANNEL_NAME && channel.name !== channel.id.slice(0, 8))) {
    return undefined;
  }
  const renamed = await renameChannel(channel.id, text.slice(0, 40)).catch(() => undefined);
  if (renamed) channels.upsert(renamed);
  return renamed;
}
