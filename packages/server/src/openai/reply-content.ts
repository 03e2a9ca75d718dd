import {
  type ReplyFinalPart,
  type ReplyPartHandlers,
  type ReplyPausePart,
  type ToolResultPart,
  handlePart,
} from '../reply/parts/reply-part';
import type { ReplyStream } from '../reply/parts/reply-stream';

/** What an OpenAI answer makes of a reply: pieces of its content, then its end. */
export interface ContentListener {
  text(piece: string): void;
  end(final: ReplyFinalPart): void;
}

/** How many characters of a tool call's input or outcome its line shows. */
export const TOOL_LINE_MAX = 300;

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  return text.length > TOOL_LINE_MAX ? `${text.slice(0, TOOL_LINE_MAX)}…` : text;
}

/** A tool call the agent ran, as a line of the answer: `[tool NAME({"city":"Paris"}) → Paris: hot]`. */
export function toolLine(part: ToolResultPart, input: unknown): string {
  const outcome = part.error === undefined ? shown(part.output ?? null) : `failed: ${part.error}`;
  return `\n[tool ${part.toolName}(${shown(input ?? {})}) → ${outcome}]\n`;
}

/** The note of a reply that waits for a person to approve its calls. */
export function pauseNote(part: ReplyPausePart): string {
  const names = part.requests.map((request) => request.toolName).join(', ');
  return (
    `\n[waiting for a person to approve ${names}: POST /api/messaging/replies/${part.replyId}/approvals; ` +
    `the rest follows at GET /api/messaging/replies/${part.replyId}/events]`
  );
}

/**
 * Reads a reply as an OpenAI answer's content, from its first part: its text deltas as they come, each tool call
 * the agent ran as a line of text once its result is in (the tools run on the server: the caller is shown them,
 * never asked to run them), a note when the reply waits for approvals; then its end. Returns the unsubscribe
 * function.
 */
export function followReply(reply: ReplyStream, listener: ContentListener): () => void {
  const inputs = new Map<string, unknown>();
  const handlers = {
    'reply-start': () => undefined,
    'text-delta': (part) => listener.text(part.delta),
    'tool-call': (part) => {
      inputs.set(part.toolCallId, part.input);
    },
    'tool-result': (part) => listener.text(toolLine(part, inputs.get(part.toolCallId))),
    'approval-request': () => undefined,
    'reply-pause': (part) => {
      listener.text(pauseNote(part));
      listener.end(part);
    },
    'reply-end': (part) => listener.end(part),
    error: (part) => listener.end(part),
  } satisfies ReplyPartHandlers;
  return reply.subscribe((part) => handlePart(handlers, part));
}
