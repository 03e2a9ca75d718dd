import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { type ReplyPartHandlers, handlePart } from '../../reply/parts/reply-part';
import type { ReplyStream } from '../../reply/parts/reply-stream';

/**
 * The `_meta` key of each progress notification: which part of the reply it tells (`text`, `tool-call`,
 * `tool-result`, `approval-request`), with the call's id and tool name for the tool parts. A client that shows
 * the reply as it streams joins the `message` of the `text` ones.
 */
export const PROGRESS_PART_META = 'parley/part';

/** What a progress notification says it tells. */
export type ProgressPart =
  | { type: 'text' }
  | { type: 'tool-call' | 'approval-request'; toolCallId: string; toolName: string }
  | { type: 'tool-result'; toolCallId: string; toolName: string; ok: boolean };

/**
 * The progress consumer of a reply, for a call whose client asked for progress (`_meta.progressToken`): a
 * `notifications/progress` for each piece of text (its `message` is the piece) and for each tool call, approval
 * request and tool result (a short line), numbered 1, 2, 3… (no total: a reply's length is not known ahead).
 * A notification that cannot be sent (the client went away) is dropped. Returns the unsubscribe function.
 */
export function reportProgress(
  reply: ReplyStream,
  progressToken: ProgressToken,
  send: (notification: ServerNotification) => Promise<void>,
): () => void {
  let progress = 0;
  const notify = (message: string, part: ProgressPart) => {
    progress += 1;
    send({
      method: 'notifications/progress',
      params: { progressToken, progress, message, _meta: { [PROGRESS_PART_META]: part } },
    }).catch(() => undefined);
  };
  const handlers = {
    'reply-start': () => undefined,
    'text-delta': ({ delta }) => {
      if (delta) notify(delta, { type: 'text' });
    },
    'tool-call': ({ toolCallId, toolName }) =>
      notify(`Calling ${toolName}`, { type: 'tool-call', toolCallId, toolName }),
    'approval-request': ({ toolCallId, toolName }) =>
      notify(`${toolName} waits for approval`, { type: 'approval-request', toolCallId, toolName }),
    'tool-result': ({ toolCallId, toolName, error }) =>
      notify(error === undefined ? `${toolName} done` : `${toolName} failed`, {
        type: 'tool-result',
        toolCallId,
        toolName,
        ok: error === undefined,
      }),
    // The end is the call's answer itself.
    'reply-end': () => undefined,
    'reply-pause': () => undefined,
    error: () => undefined,
  } satisfies ReplyPartHandlers;
  return reply.subscribe((part) => handlePart(handlers, part));
}
