import type { ParleyClient, ParleySocket } from '@parley/client';
import type { SendMode } from '../send-message';
import type { ApprovalView } from './approval-panel';

/** The page's transports, as they are when a person decides. */
export interface DecisionTransport {
  /** What "Send through" says: the socket, or REST (`stream`, `sync`). */
  mode: SendMode;
  client: ParleyClient;
  socket: ParleySocket | undefined;
  /** The open channel: the room a socket decision names (the page shows only that channel's requests). */
  channelId: string;
}

/**
 * Sends a person's decision over the transport in use: the socket's `decideApproval` when the page sends
 * through the socket (and it is connected), else `POST /api/messaging/replies/{replyId}/approvals`. Both carry
 * the page's API key. Rejects with the server's refusal (409 `CONFLICT` when already decided or expired).
 */
export async function decideApproval(
  transport: DecisionTransport,
  request: ApprovalView,
  approved: boolean,
  reason: string | undefined,
): Promise<void> {
  const { mode, client, socket, channelId } = transport;
  const { replyId, toolCallId } = request;
  if (mode === 'socket' && socket?.connected) {
    await socket.decideApproval(channelId, replyId, toolCallId, approved, reason);
    return;
  }
  await client.decideApproval(replyId, { toolCallId, approved, ...(reason ? { reason } : {}) });
}
