import {
  context,
  createContextKey,
  type Context,
  type Link,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from './semantic-attributes';
import type { AgentProfile } from '../agents/agent-profile';
import type { ParleyMetrics } from '../metrics/create-metrics';
import type { ModelRequest } from '../models/model-provider';
import type { ModelStepResult } from '../reply/loop/model-step';
import { redactText } from '../redaction/redact';
import type { ReplyStream } from '../reply/parts/reply-stream';
import type { ToolCallOutcome, ToolCallRequest } from '../reply/tools/tool-call-types';

/**
 * What a reply's loop reports as it runs: an `invoke_agent` span for the reply, a `chat` span for each model call
 * and an `execute_tool` span for each tool call (the OpenTelemetry GenAI semantic conventions), and each model
 * call's duration and tokens as Prometheus metrics. Each method runs `work` and returns what it returns.
 */
export interface ReplyTelemetry {
  /**
   * Runs a reply (`invoke_agent {agent}`) of `agent` in the channel `channelId`; `reply` names it (its id, and
   * whether it is the continuation of a paused reply).
   */
  invokeAgent<T>(
    agent: AgentProfile,
    channelId: string,
    work: () => Promise<T>,
    reply?: ReplyOfSpan,
  ): Promise<T>;
  /**
   * Starts the wait of `stream` for its turn in its channel's queue (`parley.queue.wait`, a child of `parent`);
   * `end` when its turn comes (or it was cancelled meanwhile). Undefined with tracing off.
   */
  queueWait?(stream: ReplyStream, parent: Context): { end(cancelled: boolean): void } | undefined;
  /** Runs one model call (`chat {model}`). */
  chat(
    agent: AgentProfile,
    request: ModelRequest,
    work: () => Promise<ModelStepResult>,
  ): Promise<ModelStepResult>;
  /** Runs one tool call (`execute_tool {tool}`); an outcome with an `error` marks the span failed. */
  tool(call: ToolCallRequest, work: () => Promise<ToolCallOutcome>): Promise<ToolCallOutcome>;
}

/** What names a reply on its `invoke_agent` span. */
export interface ReplyOfSpan {
  replyId: string;
  /** The continuation of a reply that paused for approvals. */
  continued?: boolean;
}

/** The span that decided a paused reply's last approval, linked from the continuation's `invoke_agent`. */
const DECIDED_BY = createContextKey('parley.decided_by');

/**
 * `parent` (the stored context of a paused reply) with the span active now (the decision's request, if any)
 * kept to be linked from the continuation's `invoke_agent` span.
 */
export function withDecidingSpan(parent: Context, active: Context = context.active()): Context {
  const deciding = trace.getSpanContext(active);
  return deciding ? parent.setValue(DECIDED_BY, deciding) : parent;
}

/** Reports nothing: `work` runs as it is. */
export const NO_TELEMETRY: ReplyTelemetry = {
  invokeAgent: (_agent, _channelId, work) => work(),
  chat: (_agent, _request, work) => work(),
  tool: (_call, work) => work(),
};

/** Options of {@link createReplyTelemetry}. */
export interface ReplyTelemetryOptions {
  /** Where spans go; absent: no spans (tracing off). */
  tracer?: Tracer;
  /** Where model calls are counted; absent: not counted. */
  metrics?: ParleyMetrics;
  /** The model provider's name: `provider:model` (`openai-compatible:gpt-4o`) or one word (`eliza`). */
  modelName: string;
  /** Message contents, tool arguments and results on spans (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). */
  captureContent?: boolean;
}

/** The provider and model a model provider's name stands for. */
export function modelOf(name: string): { provider: string; model: string } {
  const colon = name.indexOf(':');
  return colon < 0
    ? { provider: name, model: name }
    : { provider: name.slice(0, colon), model: name.slice(colon + 1) };
}

/** The `error.type` of a failed tool call: low-cardinality classes, never the message. */
export function toolErrorType(outcome: ToolCallOutcome): string {
  if (outcome.actionName === undefined) return 'unknown_tool';
  if (outcome.error?.startsWith('Invalid arguments')) return 'invalid_arguments';
  return 'tool_error';
}

/** The `error.type` of what a span's work threw: its Parley code or class name. */
function errorTypeOf(error: unknown): string {
  if (error && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (error instanceof Error) return error.name;
  }
  return '_OTHER';
}

/** Ends `span` failed with what `error` was. */
function fail(span: Span, error: unknown): void {
  span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
  // The exception event carries the message and stack: redacted as every error that leaves the server is.
  if (error instanceof Error) {
    span.recordException({
      name: error.name,
      message: redactText(error.message),
      ...(error.stack ? { stack: redactText(error.stack) } : {}),
    });
  }
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Runs `work` in a new active span, ending it (failed when `work` throws) once `work` settles. */
async function inSpan<T>(
  tracer: Tracer,
  name: string,
  kind: SpanKind,
  attributes: Record<string, string>,
  work: (span: Span) => Promise<T>,
  links?: Link[],
): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes, links }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      fail(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A link to the span that decided the reply's last approval, for a continuation's `invoke_agent`. */
function decidingLinks(): Link[] | undefined {
  const deciding = context.active().getValue(DECIDED_BY) as Link['context'] | undefined;
  return deciding ? [{ context: deciding }] : undefined;
}

/** The span of a reply's wait for its channel's turn (and a model call slot). */
function startQueueWait(tracer: Tracer, stream: ReplyStream, parent: Context) {
  const span = tracer.startSpan(
    'parley.queue.wait',
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.conversation.id': stream.channelId,
        'parley.reply.id': stream.replyId,
      },
    },
    parent,
  );
  return {
    end(cancelled: boolean) {
      if (cancelled) span.setAttribute('parley.queue.cancelled', true);
      span.end();
    },
  };
}

/** The messages as the GenAI conventions record them (`gen_ai.input.messages`). */
function messagesOf(request: ModelRequest): string {
  return JSON.stringify(
    request.messages.map((message) => ({
      role: message.role,
      parts: [{ type: 'text', content: message.content }],
    })),
  );
}

/** Records a model call's response on its span: finish reason, tokens, reasoning size, and the text when opted in. */
function recordResponse(span: Span, result: ModelStepResult, captureContent: boolean): void {
  span.setAttribute('gen_ai.response.finish_reasons', [result.finishReason]);
  const { inputTokens, outputTokens } = result.usage ?? {};
  if (inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', inputTokens);
  if (outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', outputTokens);
  // Reasoning never reaches the reply: its size is always on the span, its text only when content is captured.
  if (result.reasoningLength > 0) {
    span.setAttribute('parley.model.reasoning_characters', result.reasoningLength);
  }
  if (captureContent) {
    const reasoning =
      result.reasoning === '' ? [] : [{ type: 'reasoning', content: result.reasoning }];
    span.setAttribute(
      'gen_ai.output.messages',
      JSON.stringify([
        { role: 'assistant', parts: [...reasoning, { type: 'text', content: result.raw }] },
      ]),
    );
  }
}

/**
 * The telemetry of a server's replies: spans when a tracer is given, metrics when `metrics` is; with neither,
 * {@link NO_TELEMETRY}.
 */
export function createReplyTelemetry(options: ReplyTelemetryOptions): ReplyTelemetry {
  const { tracer, metrics, captureContent = false } = options;
  if (!tracer && !metrics) return NO_TELEMETRY;
  const { provider, model } = modelOf(options.modelName);

  async function measuredChat(agent: AgentProfile, work: () => Promise<ModelStepResult>) {
    const started = performance.now();
    const result = await work();
    metrics?.observeModelCall({
      agent: agent.character.name,
      model,
      seconds: (performance.now() - started) / 1000,
      ...result.usage,
    });
    return result;
  }

  return {
    invokeAgent: (agent, channelId, work, reply) =>
      tracer
        ? inSpan(
            tracer,
            `invoke_agent ${agent.character.name}`,
            SpanKind.INTERNAL,
            {
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.provider.name': provider,
              'gen_ai.agent.id': agent.agentId,
              'gen_ai.agent.name': agent.character.name,
              'gen_ai.conversation.id': channelId,
              'gen_ai.request.model': model,
              ...(reply ? { 'parley.reply.id': reply.replyId } : {}),
              ...(reply?.continued ? { 'parley.reply.continued': 'true' } : {}),
            },
            () => work(),
            decidingLinks(),
          )
        : work(),
    ...(tracer ? { queueWait: (stream, parent) => startQueueWait(tracer, stream, parent) } : {}),
    chat: (agent, request, work) =>
      tracer
        ? inSpan(
            tracer,
            `chat ${model}`,
            SpanKind.CLIENT,
            {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': provider,
              'gen_ai.request.model': model,
              'gen_ai.agent.name': agent.character.name,
              ...(captureContent ? { 'gen_ai.input.messages': messagesOf(request) } : {}),
            },
            async (span) => {
              const result = await measuredChat(agent, work);
              recordResponse(span, result, captureContent);
              return result;
            },
          )
        : measuredChat(agent, work),
    tool: (call, work) =>
      tracer
        ? inSpan(
            tracer,
            `execute_tool ${call.toolName}`,
            SpanKind.INTERNAL,
            {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': call.toolName,
              'gen_ai.tool.call.id': call.toolCallId,
              'gen_ai.tool.type': 'function',
            },
            async (span) => {
              if (captureContent) {
                span.setAttribute(
                  'gen_ai.tool.call.arguments',
                  redactText(
                    typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
                  ),
                );
              }
              const outcome = await work();
              if (outcome.error !== undefined) {
                span.setAttribute(ATTR_ERROR_TYPE, toolErrorType(outcome));
                // The message may quote what the tool saw: only with contents opted in.
                span.setStatus({
                  code: SpanStatusCode.ERROR,
                  ...(captureContent ? { message: outcome.error } : {}),
                });
              } else if (captureContent) {
                span.setAttribute('gen_ai.tool.call.result', JSON.stringify(outcome.output ?? {}));
              }
              return outcome;
            },
          )
        : work(),
  };
}
