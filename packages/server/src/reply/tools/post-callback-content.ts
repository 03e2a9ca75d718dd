import type { StoredMessage } from '@parley/core';
import type { AgentPostOptions, Content, Memory } from '@parley/plugin-sdk';
import { toMemory } from '../../agents/to-memory';

/**
 * An action's `callback(content)`: the content posted into the channel as the agent (its text, thought, actions
 * and attachments), in answer to `inReplyTo` when there is one. Content without text posts nothing. Resolves
 * with the stored message as actions see it.
 */
export async function postCallbackContent(
  post: (options: AgentPostOptions) => Promise<StoredMessage>,
  agentId: string,
  content: Content,
  where: { channelId: string; serverId?: string; inReplyTo?: string },
): Promise<{ memories: Memory[]; stored?: StoredMessage }> {
  if (typeof content?.text !== 'string' || content.text.trim() === '') return { memories: [] };
  const actions = Array.isArray(content.actions)
    ? content.actions.filter((name): name is string => typeof name === 'string')
    : undefined;
  const stored = await post({
    ...where,
    text: content.text,
    ...(typeof content.thought === 'string' ? { thought: content.thought } : {}),
    ...(actions ? { actions } : {}),
    ...(Array.isArray(content.attachments)
      ? { metadata: { attachments: content.attachments } }
      : {}),
  });
  return { memories: [toMemory(stored, agentId)], stored };
}
