import type { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ParleyError } from '@parley/core';
import type { ModelRequest } from './model-provider';
import { replyDeadline } from './reply-deadline';

/** The AI SDK language model an OpenAI-compatible provider creates. */
export type ChatLanguageModel = ReturnType<ReturnType<typeof createOpenAICompatible>['chatModel']>;
type Prompt = Parameters<ChatLanguageModel['doStream']>[0]['prompt'];
type StreamPart =
  Awaited<ReturnType<ChatLanguageModel['doStream']>>['stream'] extends ReadableStream<infer Part>
    ? Part
    : never;

/** Our conversation in the provider's prompt shape. */
function toPrompt(request: ModelRequest): Prompt {
  return request.messages.map((message) =>
    message.role === 'system'
      ? { role: 'system', content: message.content }
      : { role: message.role, content: [{ type: 'text', text: message.content }] },
  );
}

/**
 * Streams one reply straight from the provider's `doStream`. `streamText` would add prompt re-validation,
 * telemetry spans and several stream transforms per chunk: the bench measured them at a third of the server's
 * CPU per reply, for nothing a single-call, tool-less reply needs. Failures arrive as thrown errors or `error`
 * parts and are rethrown as ParleyErrors. `timeoutMs` bounds the wait for the first piece and between pieces;
 * time the caller spends on a piece does not count, so a slow consumer is not mistaken for a slow model.
 */
export async function* streamModelReply(
  model: ChatLanguageModel,
  request: ModelRequest,
  timeoutMs: number,
): AsyncGenerator<string, void, undefined> {
  const deadline = replyDeadline(request.signal, timeoutMs);
  deadline.arm();
  let reader: ReadableStreamDefaultReader<StreamPart> | undefined;
  try {
    const { stream } = await model.doStream({
      prompt: toPrompt(request),
      abortSignal: deadline.signal,
    });
    reader = stream.getReader();
    for (;;) {
      const { done, value: part } = await reader.read();
      deadline.pause();
      if (done) break;
      if (part.type === 'error') throw part.error;
      if (part.type === 'finish' && part.finishReason.unified === 'error') {
        throw new ParleyError('MODEL_ERROR', 'The model service ended the answer with an error');
      }
      if (part.type === 'text-delta' && part.delta !== '') yield part.delta;
      deadline.arm();
    }
  } catch (error) {
    throw deadline.settle(error);
  } finally {
    deadline.pause();
    // Cancels the HTTP request when the consumer stops early or the stream failed half-way.
    deadline.cancel();
    reader?.releaseLock();
  }
  if (deadline.cutShort()) throw deadline.settle(undefined);
}
