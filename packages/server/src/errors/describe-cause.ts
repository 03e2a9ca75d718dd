/** What a log line may say about an error: its kind and codes, never the data it carried. */
export interface CauseSummary {
  type: string;
  message?: string;
  statusCode?: number;
  code?: string;
  cause?: CauseSummary;
}

/**
 * Fields of the AI SDK's errors (and of HTTP client errors) that hold the conversation or the upstream body:
 * `requestBodyValues` is the whole prompt, `responseBody` may echo it. An error carrying any of them keeps its
 * message out of the log too, since the SDK builds messages from the response body.
 */
const CONTENT_FIELDS = ['requestBodyValues', 'responseBody', 'text', 'value', 'data'];

const MAX_DEPTH = 3;

/**
 * Summarises an error for the log: type, status and error codes, and the message only when the error cannot
 * be carrying conversation content. Follows `cause` a few levels.
 */
export function describeCause(error: unknown, depth = 0): CauseSummary {
  if (typeof error !== 'object' || error === null) return { type: typeof error };
  const record = error as Record<string, unknown>;
  const summary: CauseSummary = {
    type: error instanceof Error ? error.name : (record.constructor?.name ?? 'Object'),
  };
  const carriesContent = CONTENT_FIELDS.some((field) => record[field] !== undefined);
  if (error instanceof Error && !carriesContent) summary.message = error.message;
  if (typeof record.statusCode === 'number') summary.statusCode = record.statusCode;
  if (typeof record.code === 'string') summary.code = record.code;
  if (record.cause !== undefined && depth < MAX_DEPTH) {
    summary.cause = describeCause(record.cause, depth + 1);
  }
  return summary;
}
