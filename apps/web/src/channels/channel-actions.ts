import type { ChannelList } from './channel-list';
import { NEW_CHANNEL_NAME } from './channel-names';
import { createChannel } from './channels-api';

/** Makes a channel on the server (listed at once); rejects with the server's refusal. */
export async function makeChannel(
  channels: ChannelList,
  id: string,
  agentId: string | undefined,
): Promise<void> {
  channels.upsert(await createChannel({ id, name: NEW_CHANNEL_NAME, agentId }));
}

/**
 * A channel not made yet (no message so far) is made now, named {@link NEW_CHANNEL_NAME}: the server names it
 * after its first message once that is answered.
 */
export async function ensureChannel(
  channels: ChannelList,
  id: string,
  agentId: string | undefined,
): Promise<void> {
  if (channels.find(id)) return;
  const made = await createChannel({ id, name: NEW_CHANNEL_NAME, agentId }).catch(
    () => undefined, // 409: it exists already.
  );
  if (made) channels.upsert(made);
}
