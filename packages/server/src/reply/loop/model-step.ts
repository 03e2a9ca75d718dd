import type {
  ModelFinishReason,
  ModelProvider,
  ModelRequest,
  ModelToolCall,
  ModelUsage,
} from '../../models/model-provider';
import { streamModel } from '../../models/stream-model';
import type { ReplyExtractor } from './reply-extractor';
import { MAX_PARAMS_SOURCE } from './xml-params';

/** What one model call came to. */
export interface ModelStepResult {
  /** The text the step said (what the extractor let through). */
  text: string;
  /** The actions named in the answer's `<actions>` (the XML protocol), and its thought. */
  actions: string[];
  thought: string | undefined;
  /** Native tool calls, in the order the model made them. */
  toolCalls: ModelToolCall[];
  /** The answer as the model wrote it, up to {@link MAX_PARAMS_SOURCE} characters (to read `<params>`). */
  raw: string;
  finishReason: ModelFinishReason;
  usage: ModelUsage | undefined;
  /**
   * The model's reasoning (`reasoning-delta` parts), up to {@link MAX_PARAMS_SOURCE} characters: never the reply's
   * text and never sent to clients (a reply has no part type for it); the model call's trace records it.
   */
  reasoning: string;
  /** Characters of reasoning the step streamed, all of them (also beyond what `reasoning` keeps). */
  reasoningLength: number;
}

/**
 * Streams one model call: its text through the extractor to `onText` as it comes, its reasoning and tool calls
 * gathered. A tool call's streamed input (`tool-input-*`) is not read: the complete `tool-call` that follows it is
 * what runs. Throws what the model throws, and a step's `error` part the same way (the error it carries), so a
 * failure as a part ends the reply with the same code and message as a thrown one.
 */
export async function runModelStep(
  model: ModelProvider,
  request: ModelRequest,
  extractor: ReplyExtractor,
  onText: (delta: string) => void,
): Promise<ModelStepResult> {
  const toolCalls: ModelToolCall[] = [];
  let raw = '';
  let finishReason: ModelFinishReason = 'stop';
  let usage: ModelUsage | undefined;
  let reasoning = '';
  let reasoningLength = 0;
  const say = (text: string) => {
    if (text !== '') onText(text);
  };
  for await (const part of streamModel(model, request)) {
    switch (part.type) {
      case 'text-delta':
        if (raw.length < MAX_PARAMS_SOURCE) raw += part.delta;
        say(extractor.push(part.delta));
        break;
      case 'reasoning-delta':
        if (reasoning.length < MAX_PARAMS_SOURCE) reasoning += part.delta;
        reasoningLength += part.delta.length;
        break;
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
        break;
      case 'error':
        throw part.error;
      case 'tool-call':
        toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case 'finish':
        finishReason = part.finishReason;
        usage = part.usage;
        break;
      default:
        part satisfies never;
    }
  }
  say(extractor.flush());
  const { text, actions, thought } = extractor.result();
  return {
    text,
    actions,
    thought,
    toolCalls,
    raw,
    finishReason,
    usage,
    reasoning,
    reasoningLength,
  };
}
