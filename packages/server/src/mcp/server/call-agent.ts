import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { type ErrorCode, reservedUuid } from '@parley/core';
import type { Logger } from 'pino';
import { logError, toParleyError } from '../../errors/to-parley-error';
import { endWithin } from '../../http/reply-events';
import type { MessagingService } from '../../messaging/messaging-service';
import type { ReplyFinalPart, ToolCallRecord } from '../../reply/parts/reply-part';
import type { ReplyStream } from '../../reply/parts/reply-stream';
import type { AgentTool, AgentToolInput, AgentToolOutput } from './agent-tools';
import { MCP_SENDER_NAME, MCP_SOURCE, type McpCaller } from './mcp-callers';
import { reportProgress } from './reply-progress';

/** What the SDK hands a tool handler besides its arguments. */
export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The `_meta` key of an error result: `{ code, message, replyId?, channelId?, retryAfterSeconds? }`. */
export const ERROR_RESULT_META = 'parley/error';

/** What a call of an agent's tool needs. */
export interface CallAgentContext {
  messaging: MessagingService;
  /** How long a call waits for the reply before it answers TIMEOUT (the reply goes on). */
  syncTimeoutMs: number;
  logger: Logger;
  caller: McpCaller;
}

/** Where a failure happened, as far as it is known. */
interface FailureScope {
  channelId: string;
  replyId?: string;
}

/**
 * One call of an agent's tool: the message enters the conversation through `MessagingService.converse()`, as
 * a REST `sync` message does, and the call answers with the reply once it ends: its text as text content and
 * `{replyId, channelId, text, toolCalls}` as structured content. Without `channelId` the message starts a new
 * channel. With a progress token, the reply's parts go out as progress notifications while it runs. Every
 * failure is an error result whose text starts with its code (`RATE_LIMITED: …`), never a thrown error: a
 * refusal before the reply (a full queue, a busy channel), a reply that fails, or no end within the sync
 * timeout. A call whose request is cancelled (or whose client goes away) cancels its reply.
 */
export async function callAgent(
  context: CallAgentContext,
  tool: AgentTool,
  input: AgentToolInput,
  extra: ToolCallExtra,
): Promise<CallToolResult> {
  const channelId = input.channelId ?? reservedUuid();
  let reply: ReplyStream;
  try {
    // A person continues only a conversation of theirs (a new one becomes theirs).
    await context.caller.person?.authorize(channelId);
    ({ reply } = await context.messaging.converse({
      channelId,
      text: input.message,
      entityId: context.caller.entityId,
      senderName: MCP_SENDER_NAME,
      agentId: tool.agent.agentId,
      source: MCP_SOURCE,
    }));
  } catch (error) {
    return failureOf(error, context.logger, { channelId });
  }
  const progressToken = extra._meta?.progressToken;
  const stopProgress =
    progressToken === undefined
      ? () => undefined
      : reportProgress(reply, progressToken, (notification) =>
          extra.sendNotification(notification),
        );
  const cancel = () => {
    context.messaging.cancelReply(reply.replyId).catch(() => undefined);
  };
  if (extra.signal.aborted) cancel();
  else extra.signal.addEventListener('abort', cancel, { once: true });
  try {
    const end = await endWithin(reply, context.syncTimeoutMs);
    return end ? resultOf(reply, end) : timedOut(reply, context.syncTimeoutMs);
  } finally {
    extra.signal.removeEventListener('abort', cancel);
    stopProgress();
  }
}

/** The call's answer for the reply's last part. */
function resultOf(reply: ReplyStream, end: ReplyFinalPart): CallToolResult {
  const scope = { replyId: reply.replyId, channelId: reply.channelId };
  switch (end.type) {
    case 'error':
      return errorResult(end.code, end.message, scope);
    case 'reply-end':
      return answer({ ...scope, text: end.text, toolCalls: toolCallsOf(end.toolCalls) });
    case 'reply-pause': {
      const waiting = end.requests.map(({ toolCallId, toolName, input, expiresAt }) => ({
        toolCallId,
        toolName,
        input,
        expiresAt,
      }));
      const names = waiting.map((request) => request.toolName).join(', ');
      const note =
        `(The reply waits for a person to approve ${names}. Decide with POST ` +
        `/api/messaging/replies/${reply.replyId}/approvals; read the rest with GET ` +
        `/api/messaging/replies/${reply.replyId}/events.)`;
      return answer(
        {
          ...scope,
          text: end.text,
          toolCalls: toolCallsOf(end.toolCalls),
          awaitingApproval: waiting,
        },
        end.text ? `${end.text}\n\n${note}` : note,
      );
    }
  }
}

/** A successful answer: the text as text content, everything as structured content. */
function answer(output: AgentToolOutput, text = output.text): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: output };
}

/** The tool calls of a reply, in the answer's shape. */
function toolCallsOf(records: readonly ToolCallRecord[]): AgentToolOutput['toolCalls'] {
  return records.map(({ toolCallId, toolName, input, output, error }) => ({
    toolCallId,
    toolName,
    input,
    ...(error === undefined ? { output: output ?? null } : { error }),
  }));
}

/** The answer when the reply did not end in time: it goes on, and is stored and broadcast when it ends. */
function timedOut(reply: ReplyStream, timeoutMs: number): CallToolResult {
  return errorResult(
    'TIMEOUT',
    `The agent did not reply within ${timeoutMs} ms; the reply goes on: read it with GET ` +
      `/api/messaging/replies/${reply.replyId}/events`,
    { replyId: reply.replyId, channelId: reply.channelId },
  );
}

/** A refusal or failure as an error result; an unexpected one is logged and told as INTERNAL. */
function failureOf(error: unknown, logger: Logger, scope: FailureScope): CallToolResult {
  const parleyError = toParleyError(error);
  logError(logger, parleyError, { route: 'mcp', ...scope });
  const retryAfter = (parleyError.details as { retryAfterSeconds?: unknown } | undefined)
    ?.retryAfterSeconds;
  return errorResult(parleyError.code, parleyError.message, {
    ...scope,
    ...(typeof retryAfter === 'number' ? { retryAfterSeconds: retryAfter } : {}),
  });
}

/** An error result: the text starts with the code; `_meta` holds it for programs. */
function errorResult(
  code: ErrorCode,
  message: string,
  scope: FailureScope & { retryAfterSeconds?: number },
): CallToolResult {
  const retry =
    scope.retryAfterSeconds === undefined ? '' : ` (retry after ${scope.retryAfterSeconds} s)`;
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message}${retry}` }],
    _meta: { [ERROR_RESULT_META]: { code, message, ...scope } },
  };
}
