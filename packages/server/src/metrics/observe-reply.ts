import { type ReplyPartHandlers, handlePart } from '../reply/parts/reply-part';
import type { ReplyConsumer, ReplyStream } from '../reply/parts/reply-stream';
import type { ParleyMetrics } from './create-metrics';

/** How a tool call ended, as `parley_tool_calls_total` labels it. */
export type ToolCallOutcome = 'ok' | 'error';

/** Most distinct tool names labelled, per metrics registry; any further name is counted as `other`. */
export const MAX_TOOL_LABELS = 100;

/** The tool label of a call to a tool the agent does not have, and of names beyond {@link MAX_TOOL_LABELS}. */
export const OTHER_TOOL = 'other';

// The error the loop gives a call to a tool the agent does not have (a name the model made up).
const UNKNOWN_TOOL = 'Unknown tool';

const labelled = new WeakMap<object, Set<string>>();

/**
 * The `tool` label of a call: its name while the registry has labelled fewer than {@link MAX_TOOL_LABELS}
 * names, else `other`; a tool the agent does not have (the model can name anything) is always `other`. So a
 * model cannot grow the metrics without bound.
 */
export function toolLabel(metrics: object, toolName: string, error?: string): string {
  if (error?.startsWith(UNKNOWN_TOOL)) return OTHER_TOOL;
  let names = labelled.get(metrics);
  if (!names) labelled.set(metrics, (names = new Set()));
  if (names.has(toolName)) return toolName;
  if (names.size >= MAX_TOOL_LABELS) return OTHER_TOOL;
  names.add(toolName);
  return toolName;
}

/**
 * Counts one reply in the metrics as a consumer of its part stream, like the room's consumer: `reply-start`
 * starts it, `reply-end` ends it as stored or empty with the model's time, `error` ends it as an error with the
 * model error code, and each `tool-result` counts a tool call by tool and outcome. Attach it to new replies
 * only (not to a stored reply replayed for a client).
 *
 * @example
 * new MessagingService({ ...options, consumers: [roomDelivery(broadcaster), observingReplies(metrics)] });
 */
export function observeReply(
  stream: Pick<ReplyStream, 'subscribeLive'>,
  metrics: ParleyMetrics,
  now: () => number = () => performance.now(),
): void {
  let started: number | undefined;
  const handlers = {
    'reply-start': () => {
      started = now();
      metrics.replyStarted();
    },
    'text-delta': () => undefined,
    'tool-call': () => undefined,
    'approval-request': () => undefined,
    'tool-result': ({ toolName, error }) => {
      const outcome = error === undefined ? 'ok' : 'error';
      metrics.toolCallFinished(toolLabel(metrics, toolName, error), outcome);
    },
    'reply-end': (part) => {
      if (started === undefined) return;
      metrics.observeModelLatency(now() - started);
      metrics.replyFinished(part.message ? 'stored' : 'empty');
    },
    // A run of the reply ends at a pause; its continuation counts as a run of its own.
    'reply-pause': () => {
      if (started === undefined) return;
      metrics.observeModelLatency(now() - started);
      metrics.replyFinished('paused');
    },
    error: (part) => {
      if (started === undefined) return;
      metrics.modelError(part.code);
      metrics.replyFinished('error');
    },
  } satisfies ReplyPartHandlers;
  stream.subscribeLive((part) => handlePart(handlers, part));
}

/** {@link observeReply} as a consumer the messaging service hands every new reply to. */
export const observingReplies =
  (metrics: ParleyMetrics): ReplyConsumer =>
  (reply) =>
    observeReply(reply, metrics);
