import { ParleyClientError, type ParleyClient, type ParleySocket } from '@parley/client';
import type { AttachmentRef, SyncModeResponse } from '@parley/core';
import type { MessageList } from './chat/message-list';
import { toolCallsOf } from './chat/to-chat-message';

/** How the page sends: over the socket, or REST with the `stream` or `sync` mode. */
export type SendMode = 'socket' | 'stream' | 'sync';

/** What one send needs. */
export interface SendInput {
  mode: SendMode;
  text: string;
  /** Files uploaded for this message: they go in its `metadata.attachments`. */
  attachments?: AttachmentRef[];
  channelId: string;
  agentId: string;
  /** Whether a socket SEND_MESSAGE reaches `agentId` (it names no agent: the channel's agent answers). */
  socketReachesAgent: boolean;
  me: { entityId: string; name: string };
  client: ParleyClient;
  socket: ParleySocket | undefined;
  list: MessageList;
  agentName: string;
  /** Called with the agent's name while a reply is produced by this send, then with undefined. */
  onReplying: (agentName: string | undefined) => void;
  /** Called with the id of the reply this send streams, once known (what the Stop button cancels). */
  onReplyId?: (replyId: string) => void;
}

/**
 * The message was sent (the server stored it) but its reply failed: not a "Not sent". The reply's bubble shows
 * the error when it has one.
 */
export class ReplyFailedError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Whether an error is the server's CANCELLED (the reply was stopped). */
function isCancelled(error: unknown): boolean {
  return ParleyClientError.isInstance(error) && error.code === 'CANCELLED';
}

/**
 * Sends one message and shows what comes back. Whatever the path, the server also broadcasts the message and
 * the reply to the room, and the list shows each message once (by id, chunks by index).
 *
 * @throws ParleyClientError when the server refuses the message or the stream fails.
 */
export async function sendMessage(input: SendInput): Promise<void> {
  const { mode, text, channelId, agentId, me, client, list } = input;
  const attachments = input.attachments?.length ? input.attachments : undefined;
  const own = { senderId: me.entityId, senderName: me.name, role: 'own' as const, attachments };
  const metadata = attachments ? { attachments } : undefined;
  const rest = { text, entityId: me.entityId, senderName: me.name, agentId, metadata };

  if (mode === 'socket' && input.socket && input.socketReachesAgent) {
    const messageId = crypto.randomUUID();
    list.upsert({ ...own, id: messageId, text });
    list.markPending(messageId);
    try {
      await input.socket.sendMessage(channelId, {
        text,
        senderId: me.entityId,
        senderName: me.name,
        messageId,
        metadata,
      });
    } catch (error) {
      list.fail(messageId, 'Not sent');
      throw error;
    }
    return;
  }

  if (mode === 'socket') {
    // The first message of a new channel for another agent: REST names the agent, the reply comes on the socket.
    const { userMessage } = await client.sendMessage(channelId, rest);
    list.upsert({ ...own, id: userMessage.id, text: userMessage.text });
    return;
  }

  if (mode === 'stream') {
    let replyId: string | undefined;
    let sentId: string | undefined;
    input.onReplying(input.agentName);
    try {
      for await (const event of client.sendMessage(channelId, { ...rest, mode: 'stream' })) {
        switch (event.event) {
          case 'user_message':
            sentId = event.data.id;
            list.upsert({ ...own, id: event.data.id, text: event.data.text });
            replyId = event.data.replyId ?? replyId;
            if (event.data.replyId) input.onReplyId?.(event.data.replyId);
            break;
          case 'chunk':
            replyId = event.data.messageId;
            list.chunk(replyId, event.data.index, event.data.chunk, 'sse', input.agentName);
            break;
          case 'tool_call':
            // Tool events name no reply: it is the one `user_message` announced (a server older than `replyId`
            // sends none before the first chunk; `done` lists the calls again).
            if (replyId) list.toolCall(replyId, input.agentName, event.data);
            break;
          case 'tool_result':
            if (replyId) list.toolResult(replyId, input.agentName, event.data);
            break;
          case 'approval_request':
            // The reply pauses until a person decides: the stream stays open, and so does the bubble.
            list.approvalRequest(event.data.replyId, input.agentName, event.data);
            break;
          case 'done':
            if (!replyId) break;
            for (const call of toolCallsOf(event.data.toolCalls) ?? []) {
              list.toolCall(replyId, input.agentName, call);
            }
            // `done` of an empty or ignored reply: shown as such, never as silence.
            list.finish(replyId, input.agentName);
            break;
          case 'gap':
            // What follows a gap does not continue the text shown: the bubble ends (the history has the reply).
            if (replyId) list.finish(replyId, undefined);
            break;
          default:
            event satisfies never;
        }
      }
    } catch (error) {
      // Before `user_message` the server refused the message itself: not sent.
      if (sentId === undefined) throw error;
      list.markSent(sentId);
      // Stopped (here or in another tab): the message stays sent, the reply says it was stopped.
      if (isCancelled(error)) {
        if (replyId) list.stopped(replyId);
        return;
      }
      if (replyId) list.fail(replyId, error instanceof Error ? error.message : String(error));
      throw new ReplyFailedError(error);
    } finally {
      input.onReplying(undefined);
    }
    return;
  }

  input.onReplying(input.agentName);
  try {
    const response = await client.sendMessage(
      channelId,
      { ...rest, mode: 'sync' },
      { timeout: 120_000 },
    );
    list.upsert({ ...own, id: response.userMessage.id, text: response.userMessage.text });
    if (response.replyId && response.awaitingApproval?.length) {
      showPaused(list, response.replyId, input.agentName, response);
      return;
    }
    const reply = {
      senderId: agentId,
      senderName: input.agentName,
      text: response.agentResponse.text,
      role: 'agent' as const,
      toolCalls: toolCallsOf(response.agentResponse.toolCalls),
    };
    // An empty or ignored reply is shown as such (`(empty reply)`), never as silence.
    // The reply's id, when the server gives it, is the one its broadcast and live events carry: one entry.
    if (response.replyId) list.upsert({ ...reply, id: response.replyId });
    else list.upsertReplyTo(response.userMessage.id, reply);
  } finally {
    input.onReplying(undefined);
  }
}

/**
 * A `sync` answer of a reply that paused for approval (HTTP 202): the calls that ran and the ones waiting, on a
 * reply that stays open. The rest (results, text, the final message) comes on the socket, under the same id.
 */
function showPaused(
  list: MessageList,
  replyId: string,
  agentName: string,
  response: Pick<SyncModeResponse, 'agentResponse' | 'awaitingApproval'>,
): void {
  for (const call of toolCallsOf(response.agentResponse.toolCalls) ?? []) {
    list.toolCall(replyId, agentName, call);
  }
  for (const request of response.awaitingApproval ?? []) {
    list.approvalRequest(replyId, agentName, request);
  }
}
