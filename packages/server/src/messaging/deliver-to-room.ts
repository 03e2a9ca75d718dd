import type { RoomBroadcaster } from './room-broadcaster';
import type { ReplyConsumer, ReplyStream } from './reply-stream';
import { toBroadcast } from './to-broadcast';

/**
 * The room's consumer of every reply, whatever started it: each text delta as `messageStreamChunk`, then the
 * stored reply as `messageBroadcast` or the failure as `messageError`, then `messageComplete`. So every member
 * of the room sees the same sequence for every reply.
 */
export function deliverToRoom(stream: ReplyStream, broadcaster: RoomBroadcaster): void {
  const { channelId, replyId } = stream;
  const room = { roomId: channelId, channelId };
  // messageComplete names the message whose processing ended: the one answered, else the post itself.
  const completed = { messageId: stream.inReplyTo ?? replyId, ...room };
  let agent = { agentId: '', agentName: '' };
  stream.subscribe((part) => {
    switch (part.type) {
      case 'reply-start':
        agent = { agentId: part.agentId, agentName: part.agentName };
        return;
      case 'text-delta':
        broadcaster.emit(channelId, 'messageStreamChunk', {
          messageId: replyId,
          chunk: part.delta,
          index: part.index,
          ...room,
          ...agent,
        });
        return;
      case 'reply-end':
        if (part.message)
          broadcaster.emit(channelId, 'messageBroadcast', toBroadcast(part.message));
        break;
      case 'error':
        broadcaster.emit(channelId, 'messageError', {
          code: part.code,
          message: part.message,
          ...completed,
        });
        break;
    }
    broadcaster.emit(channelId, 'messageComplete', completed);
  });
}

/** {@link deliverToRoom} as a consumer the messaging service hands every new reply to. */
export const roomDelivery =
  (broadcaster: RoomBroadcaster): ReplyConsumer =>
  (reply) =>
    deliverToRoom(reply, broadcaster);
