import type { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ParleyError } from '@parley/core';
import { TOOL_CALL_LIMITS, toolCallLimitError } from './chat-completion-chunks';
import type { ModelRequest, ModelStreamPart, ModelUsage } from './model-provider';
import { replyDeadline } from './reply-deadline';

/** The AI SDK language model an OpenAI-compatible provider creates. */
export type ChatLanguageModel = ReturnType<ReturnType<typeof createOpenAICompatible>['chatModel']>;
type CallOptions = Parameters<ChatLanguageModel['doStream']>[0];
type Prompt = CallOptions['prompt'];
type StreamPart =
  Awaited<ReturnType<ChatLanguageModel['doStream']>>['stream'] extends ReadableStream<infer Part>
    ? Part
    : never;
type FinishPart = Extract<StreamPart, { type: 'finish' }>;

/** How {@link streamModelReply} calls the model. */
export interface StreamModelReplyOptions {
  /** Longest silence, in ms, before the first part and between parts. */
  timeoutMs: number;
  /** Whether the request's tools are passed to the model. */
  callsTools: boolean;
}

/** A tool call's arguments as the prompt's `input`: the provider writes them back with `JSON.stringify`. */
function toInput(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    // Arguments the model wrote as invalid JSON go back as the text they were.
    return json;
  }
}

/** Our conversation in the provider's prompt shape (`LanguageModelV3Prompt`). */
function toPrompt(request: ModelRequest): Prompt {
  return request.messages.map((message): Prompt[number] => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'assistant':
        if (!message.toolCalls?.length) {
          return { role: 'assistant', content: [{ type: 'text', text: message.content }] };
        }
        return {
          role: 'assistant',
          content: [
            ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
            ...message.toolCalls.map((call) => ({
              type: 'tool-call' as const,
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              input: toInput(call.input),
            })),
          ],
        };
      case 'tool':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName: message.toolName,
              output: { type: 'text', value: message.content },
            },
          ],
        };
      default:
        return { role: message.role, content: [{ type: 'text', text: message.content }] };
    }
  });
}

/** The request's tools as the provider's function tools, when the model is offered any. */
function toTools(request: ModelRequest, callsTools: boolean): CallOptions['tools'] {
  if (!callsTools || !request.tools?.length) return undefined;
  return request.tools.map(({ name, description, inputSchema }) => ({
    type: 'function',
    name,
    description,
    inputSchema,
  }));
}

function toUsage(usage: FinishPart['usage']): ModelUsage | undefined {
  const inputTokens = usage.inputTokens.total;
  const outputTokens = usage.outputTokens.total;
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return {
    ...(inputTokens === undefined ? {} : { inputTokens }),
    ...(outputTokens === undefined ? {} : { outputTokens }),
  };
}

/**
 * Streams one step straight from the provider's `doStream`, as the direct path does: text deltas, each tool call
 * once complete, then `finish` with the unified reason and usage. `streamText` would add prompt re-validation,
 * telemetry spans and several stream transforms per chunk: the bench measured them at a third of the server's
 * CPU per reply, for nothing a single step needs. Failures arrive as thrown errors or `error` parts and are
 * rethrown as ParleyErrors; tool calls over {@link TOOL_CALL_LIMITS} end the step with MODEL_ERROR. `timeoutMs`
 * bounds the wait for the first part and between parts; time the caller spends on a part does not count, so a
 * slow consumer is not mistaken for a slow model.
 *
 * Unlike the direct path, the AI SDK's provider fails a stream that ends without a finish reason.
 */
export async function* streamModelReply(
  model: ChatLanguageModel,
  request: ModelRequest,
  { timeoutMs, callsTools }: StreamModelReplyOptions,
): AsyncGenerator<ModelStreamPart, void, undefined> {
  const deadline = replyDeadline(request.signal, timeoutMs);
  deadline.arm();
  let reader: ReadableStreamDefaultReader<StreamPart> | undefined;
  let calls = 0;
  /** Bytes of arguments streamed so far, by tool call id: a call too large is cut off before it completes. */
  const inputBytes = new Map<string, number>();
  try {
    const tools = toTools(request, callsTools);
    const { stream } = await model.doStream({
      prompt: toPrompt(request),
      ...(tools ? { tools } : {}),
      abortSignal: deadline.signal,
    });
    reader = stream.getReader();
    for (;;) {
      const { done, value: part } = await reader.read();
      deadline.pause();
      if (done) break;
      switch (part.type) {
        case 'error':
          throw part.error;
        case 'text-delta':
          if (part.delta !== '') yield { type: 'text-delta', delta: part.delta };
          break;
        case 'tool-input-delta': {
          const bytes = (inputBytes.get(part.id) ?? 0) + Buffer.byteLength(part.delta);
          if (bytes > TOOL_CALL_LIMITS.argumentBytes) throw toolCallLimitError('argumentBytes');
          inputBytes.set(part.id, bytes);
          break;
        }
        case 'tool-call':
          if (++calls > TOOL_CALL_LIMITS.calls) throw toolCallLimitError('calls');
          if (part.toolName.length > TOOL_CALL_LIMITS.nameLength)
            throw toolCallLimitError('nameLength');
          if (Buffer.byteLength(part.input) > TOOL_CALL_LIMITS.argumentBytes) {
            throw toolCallLimitError('argumentBytes');
          }
          yield {
            type: 'tool-call',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input.trim() === '' ? '{}' : part.input,
          };
          break;
        case 'finish': {
          if (part.finishReason.unified === 'error') {
            throw new ParleyError(
              'MODEL_ERROR',
              'The model service ended the answer with an error',
            );
          }
          const usage = toUsage(part.usage);
          yield usage
            ? { type: 'finish', finishReason: part.finishReason.unified, usage }
            : { type: 'finish', finishReason: part.finishReason.unified };
          break;
        }
        default:
          break;
      }
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
