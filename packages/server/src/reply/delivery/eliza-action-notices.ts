import type { MessageBroadcast } from '@parley/core';
import { uuidV5 } from '@parley/plugin-sdk';
import type { ToolCallPart, ToolResultPart } from '../parts/reply-part';

/** The source elizaOS's web client sends its messages with: only its users get action notices, as in elizaOS. */
export const ELIZA_WEB_CLIENT_SOURCE = 'client_chat';

/** Namespace of the notices' ids (a UUID v5 of the reply and the call: start and end share it). */
const NOTICE_NAMESPACE = '5b0e9a52-0d6c-4a1e-9f3b-6c2d8e7a4f10';

/** Who and where a notice is about. */
export interface NoticeContext {
  replyId: string;
  channelId: string;
  agentId: string;
  agentName: string;
  inReplyTo: string | null;
}

/**
 * elizaOS 1.x's action notice for its web client, as its server sends it: a `messageBroadcast` with
 * `source: 'agent_action'`, sent when the action starts (`actionStatus: 'executing'`, text `Executing action: X`)
 * and again under the same id when it ends (`completed` with the result's text, or `failed` with the error).
 * The client shows the first and updates it in place.
 */
export function toActionNotice(
  part: ToolCallPart | ToolResultPart,
  context: NoticeContext,
): MessageBroadcast {
  const actionId = uuidV5(`${context.replyId}:${part.toolCallId}`, NOTICE_NAMESPACE);
  const ended = part.type === 'tool-result';
  const failed = ended && part.error !== undefined;
  const text = !ended
    ? `Executing action: ${part.toolName}`
    : failed
      ? part.error!
      : resultText(part.output);
  return {
    id: actionId,
    roomId: context.channelId,
    channelId: context.channelId,
    senderId: context.agentId,
    senderName: context.agentName,
    text,
    source: 'agent_action',
    metadata: { agent_id: context.agentId, agentName: context.agentName },
    inReplyTo: context.inReplyTo,
    createdAt: new Date().toISOString(),
    actions: [part.toolName],
    rawMessage: {
      actionStatus: !ended ? 'executing' : failed ? 'failed' : 'completed',
      actionId,
      type: 'agent_action',
      toolCallId: part.toolCallId,
    },
  };
}

function resultText(output: unknown): string {
  const text = (output as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : '';
}
