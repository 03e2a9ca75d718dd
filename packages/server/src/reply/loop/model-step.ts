import type {
  ModelFinishReason,
  ModelProvider,
  ModelRequest,
  ModelToolCall,
  ModelUsage,
} from '../../models/model-provider';
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
}

/**
 * Streams one model call: its text through the extractor to `onText` as it comes, its tool calls gathered.
 * Throws what the model throws.
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
  const say = (text: string) => {
    if (text !== '') onText(text);
  };
  for await (const part of model.stream(request)) {
    switch (part.type) {
      case 'text-delta':
        if (raw.length < MAX_PARAMS_SOURCE) raw += part.delta;
        say(extractor.push(part.delta));
        break;
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
  return { text, actions, thought, toolCalls, raw, finishReason, usage };
}
