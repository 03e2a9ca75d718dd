import type { Logger } from 'pino';
import { logError, toParleyError } from '../../errors/to-parley-error';
import type { ReplyErrorPart } from '../parts/reply-part';

/**
 * The one place a failed reply becomes its `error` part: the failure is mapped to a client-safe code and
 * message and logged once, with the cause summarised and never the conversation.
 */
export function toReplyError(
  error: unknown,
  replyId: string,
  logger: Logger,
  context: Record<string, unknown>,
): ReplyErrorPart {
  const parleyError = toParleyError(error);
  logError(logger, parleyError, { ...context, replyId });
  return { type: 'error', replyId, code: parleyError.code, message: parleyError.message };
}
