import { ParleyError } from '@parley/core';
import { type LanguageModel, streamText } from 'ai';
import type { ModelRequest } from './model-provider';
import { toModelError } from './to-model-error';

/**
 * Streams one reply through the AI SDK and turns its reporting style into ours. `streamText` does not throw
 * for failures: they arrive as `error` parts (and aborts as an `abort` part), so they are rethrown here as
 * ParleyErrors. `timeoutMs` bounds the wait for the first piece and between pieces; time the caller spends on
 * a piece does not count, so a slow consumer is not mistaken for a slow model.
 */
export async function* streamModelReply(
  model: LanguageModel,
  request: ModelRequest,
  timeoutMs: number,
): AsyncGenerator<string, void, undefined> {
  const { signal } = request;
  signal?.throwIfAborted();
  const stop = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => {
      timedOut = true;
      stop.abort(new DOMException(`No answer within ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
  };
  const result = streamText({
    model,
    messages: request.messages,
    // The system turns come from the server's own prompt building, never from a user.
    allowSystemInMessages: true,
    // The caller decides on retries; a retry here would hide the cost and double the wait.
    maxRetries: 0,
    abortSignal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
    // The default handler prints with console.error; failures are thrown from the loop below instead.
    onError: () => {},
  });
  arm();
  try {
    for await (const part of result.fullStream) {
      clearTimeout(timer);
      if (part.type === 'error') throw part.error;
      if (part.type === 'abort') break;
      if (part.type === 'finish' && part.finishReason === 'error') {
        throw new ParleyError('MODEL_ERROR', 'The model service ended the answer with an error');
      }
      if (part.type === 'text-delta' && part.text !== '') yield part.text;
      arm();
    }
  } catch (error) {
    throw settle(error);
  } finally {
    clearTimeout(timer);
    // Cancels the HTTP request when the consumer stops early or the stream failed half-way.
    stop.abort();
  }
  if (timedOut || signal?.aborted) throw settle(undefined);

  function settle(error: unknown): unknown {
    if (timedOut) {
      return new ParleyError('TIMEOUT', `The model did not answer within ${timeoutMs} ms`, {
        cause: error ?? stop.signal.reason,
      });
    }
    if (signal?.aborted) return signal.reason;
    return toModelError(error);
  }
}
