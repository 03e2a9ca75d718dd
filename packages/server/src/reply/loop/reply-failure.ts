import type { Logger } from 'pino';
import { logError, toParleyError } from '../../errors/to-parley-error';
import { redactText } from '../../redaction/redact';
import { isDatabaseUnavailable, toStorageError } from '../../storage/to-storage-error';
import type { ReplyErrorPart } from '../parts/reply-part';

/**
 * The one place a failed reply becomes its `error` part: the failure is mapped to a client-safe code and
 * message and logged once, with the cause summarised and never the conversation. A database that cannot be
 * reached is UNAVAILABLE (503) whatever part of the reply's path met it (its turn in the channel, its history,
 * its store), never INTERNAL. The message is redacted: a provider's words may repeat a key or a URL's password.
 */
export function toReplyError(
  error: unknown,
  replyId: string,
  logger: Logger,
  context: Record<string, unknown>,
): ReplyErrorPart {
  const parleyError = toParleyError(
    isDatabaseUnavailable(error) ? toStorageError(error, 'reply') : error,
  );
  logError(logger, parleyError, { ...context, replyId });
  return {
    type: 'error',
    replyId,
    code: parleyError.code,
    message: redactText(parleyError.message),
  };
}
