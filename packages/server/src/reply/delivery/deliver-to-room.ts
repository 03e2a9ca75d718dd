import {
  type ReplyPartHandlers,
  type ToolCallPart,
  type ToolResultPart,
  handlePart,
} from '../parts/reply-part';
import { ELIZA_WEB_CLIENT_SOURCE, toActionNotice } from './eliza-action-notices';
import type { ReplyConsumer, ReplyStream } from '../parts/reply-stream';
import type { RoomBroadcaster } from './room-broadcaster';
import { toBroadcast } from './to-broadcast';

/**
 * The room's consumer of every reply, whatever started it: each text delta as `messageStreamChunk`, each tool
 * call and its outcome as `toolCall` and `toolResult` (and, answering elizaOS's web client, elizaOS's action
 * notices), each approval request as `approvalRequest`, then the stored reply as `messageBroadcast` or the
 * failure as `messageError`, then `messageComplete` (saying `empty: true` and why when the agent sent no reply). So every member of the room sees the same sequence for
 * every reply.
 */
export function deliverToRoom(stream: ReplyStream, broadcaster: RoomBroadcaster): void {
  const { channelId, replyId } = stream;
  const room = { roomId: channelId, channelId };
  // messageComplete names the message whose processing ended: the one answered, else the post itself.
  const completed = { messageId: stream.inReplyTo ?? replyId, ...room };
  let agent = { agentId: '', agentName: '' };
  // What each tool and approval event names first: the reply, its room and its agent (known at reply-start).
  let origin = { messageId: replyId, ...room, ...agent };
  // elizaOS's web client also hears each action start and end, as elizaOS's own server tells it.
  let notices = false;
  const notice = (part: ToolCallPart | ToolResultPart) => {
    if (!notices) return;
    broadcaster.emit(
      channelId,
      'messageBroadcast',
      toActionNotice(part, { replyId, channelId, inReplyTo: stream.inReplyTo, ...agent }),
    );
  };
  const handlers = {
    'reply-start': (part) => {
      agent = { agentId: part.agentId, agentName: part.agentName };
      origin = { messageId: replyId, ...room, ...agent };
      notices = part.source === ELIZA_WEB_CLIENT_SOURCE;
    },
    'text-delta': (part) => {
      broadcaster.emit(channelId, 'messageStreamChunk', {
        messageId: replyId,
        chunk: part.delta,
        index: part.index,
        ...room,
        ...agent,
      });
    },
    'tool-call': (part) => {
      const { toolCallId, toolName, input } = part;
      notice(part);
      broadcaster.emit(channelId, 'toolCall', { ...origin, toolCallId, toolName, input });
    },
    'approval-request': (part) => {
      const { toolCallId, toolName, input, expiresAt } = part;
      broadcaster.emit(channelId, 'approvalRequest', {
        ...origin,
        toolCallId,
        toolName,
        input,
        expiresAt,
      });
    },
    'tool-result': (part) => {
      const { toolCallId, toolName, output, error } = part;
      notice(part);
      broadcaster.emit(channelId, 'toolResult', {
        ...origin,
        toolCallId,
        toolName,
        ...(error === undefined ? { output } : { error }),
      });
    },
    'reply-end': (part) => {
      if (part.message) broadcaster.emit(channelId, 'messageBroadcast', toBroadcast(part.message));
      // No reply, deliberately: said so, never left as silence.
      const empty = part.reason && { replyId, empty: true, reason: part.reason };
      const receipt = part.receiptId && { receiptId: part.receiptId };
      broadcaster.emit(channelId, 'messageComplete', { ...completed, ...empty, ...receipt });
    },
    // The reply waits for its approval requests: it goes on, under the same id, in a stream of its own.
    'reply-pause': () => undefined,
    error: (part) => {
      broadcaster.emit(channelId, 'messageError', {
        code: part.code,
        message: part.message,
        ...completed,
      });
      broadcaster.emit(channelId, 'messageComplete', completed);
    },
  } satisfies ReplyPartHandlers;
  // A reply going on after a pause: the room already heard what came before.
  stream.subscribeLive((part) => handlePart(handlers, part));
}

/** {@link deliverToRoom} as a consumer the messaging service hands every new reply to. */
export const roomDelivery =
  (broadcaster: RoomBroadcaster): ReplyConsumer =>
  (reply) =>
    deliverToRoom(reply, broadcaster);
