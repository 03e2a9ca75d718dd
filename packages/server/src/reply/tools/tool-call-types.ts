/** A call to run: what the model asked for. `input` is JSON text (native calls) or an object (XML protocol). */
export interface ToolCallRequest {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** What a call came to: `output` for the model, or `error` (the model is told it, the reply goes on). */
export interface ToolCallOutcome {
  /** The parsed input, as the tool-call part shows it (the raw text when it did not parse). */
  input: unknown;
  output?: ToolOutput;
  error?: string;
  /** The action that ran, by its declared name (absent for an unknown tool). */
  actionName?: string;
}

/** What an action gave back: its result's text, values and data. */
export interface ToolOutput {
  text?: string;
  values?: Record<string, unknown>;
  data?: Record<string, unknown>;
}
