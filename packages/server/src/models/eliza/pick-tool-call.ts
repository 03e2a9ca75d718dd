import type { ModelMessage, ModelTool } from '../model-provider';

/** A call the offline model decides to make. */
export interface ElizaToolCall {
  toolName: string;
  input: Record<string, unknown>;
}

// "calculate 12 * 7", "what is (3 + 4) / 2?", "compute 2^10": arithmetic only, so ordinary questions stay talk.
const ARITHMETIC =
  /^(?:please\s+)?(?:calculate|compute|evaluate|what\s+is|what's)\s+([-+*/^%().\d\s]*\d[-+*/^%().\d\s]*?)\s*[?.!]?$/i;
// "run HELLO_WORLD", "use the GET_TIME action", "call CREATE_TICKET": a tool named exactly.
const NAMED =
  /^(?:please\s+)?(?:run|use|call|do)\s+(?:the\s+)?([A-Za-z][\w-]{0,63})(?:\s+(?:action|tool))?\s*[.!]?$/i;

/**
 * The call the offline model makes for a recognisable request, when the tool is offered: arithmetic goes to a
 * tool named `CALCULATE` (the calculator example plugin's action) with `{expression}`; "run NAME" calls the
 * offered tool of that name with no arguments. Anything else: no call, and the model talks.
 */
export function pickToolCall(text: string, tools: readonly ModelTool[]): ElizaToolCall | undefined {
  const request = text.trim();
  const offered = (name: string) =>
    tools.find((tool) => tool.name.toUpperCase() === name.toUpperCase());
  const arithmetic = ARITHMETIC.exec(request);
  const calculator = offered('CALCULATE');
  if (arithmetic && calculator) {
    return { toolName: calculator.name, input: { expression: arithmetic[1]!.trim() } };
  }
  const named = NAMED.exec(request);
  const tool = named && offered(named[1]!);
  return tool ? { toolName: tool.name, input: {} } : undefined;
}

/**
 * The offline model's answer once its calls have run: each result (or failure) said plainly, from the tool turns
 * that end the conversation. Undefined when the conversation does not end with results.
 */
export function answerFromResults(messages: readonly ModelMessage[]): string | undefined {
  const results: string[] = [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== 'tool') break;
    results.unshift(describeResult(message.toolName, message.content));
  }
  return results.length === 0 ? undefined : results.join(' ');
}

function describeResult(toolName: string, content: string): string {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    value = undefined;
  }
  const { error, text } = (value ?? {}) as { error?: unknown; text?: unknown };
  if (typeof error === 'string') return `I tried ${toolName}, but it did not work: ${error}.`;
  const said = (typeof text === 'string' ? text : content).trim();
  return said === '' ? `I ran ${toolName}; it had nothing to say.` : said;
}
