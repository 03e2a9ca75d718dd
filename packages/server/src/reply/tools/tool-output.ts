/** `text` cut to at most `limit` characters, with a marker saying how much was left out. */
export function capText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const marker = `…[cut: ${text.length - limit} more characters]`;
  return text.slice(0, Math.max(0, limit - marker.length)) + marker;
}

/** What the model is given back for a call: the result's text, else its JSON, or the error. */
export function toModelContent(outcome: { output?: unknown; error?: string }): string {
  if (outcome.error !== undefined) return JSON.stringify({ error: outcome.error });
  const { output } = outcome;
  if (typeof output === 'string') return output;
  if (typeof output !== 'object' || output === null) return JSON.stringify(output ?? {});
  const { text, values, data } = output as { text?: unknown; values?: unknown; data?: unknown };
  if (values === undefined && data === undefined && typeof text === 'string') return text;
  return JSON.stringify(output);
}
