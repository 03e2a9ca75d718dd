import type { ParleySocket } from '@parley/client';
import type { MessageList } from './message-list';

/**
 * Shows the room's tool calls as cards: each `toolCall` on its reply (by `messageId`, the reply's id), each
 * `approvalRequest` as Approve / Deny on its card, each `toolResult` on its card (which closes the request,
 * however it was decided). `onCall` hears of each call (the reply is running), `onApprovalRequest` of each
 * call that waits for a person. Returns what stops listening.
 */
export function listenToolEvents(
  socket: ParleySocket,
  list: MessageList,
  onCall?: (replyId: string, agentName: string) => void,
  onApprovalRequest?: (replyId: string, agentName: string) => void,
): () => void {
  const stopCalls = socket.on('toolCall', (call) => {
    list.toolCall(call.messageId, call.agentName, call);
    onCall?.(call.messageId, call.agentName);
  });
  const stopRequests = socket.on('approvalRequest', (request) => {
    list.approvalRequest(request.messageId, request.agentName, {
      ...request,
      replyId: request.messageId,
    });
    onApprovalRequest?.(request.messageId, request.agentName);
  });
  const stopResults = socket.on('toolResult', (result) => {
    list.toolResult(result.messageId, result.agentName, result);
  });
  return () => {
    stopCalls();
    stopRequests();
    stopResults();
  };
}
