import { teeAgentsResponseSchema, type TeeAgentsResponse } from '@parley/core';

/** The event log as `GET /api/tee/agents` serves it. */
export type TeeEventLog = NonNullable<TeeAgentsResponse['eventLog']>;

const eventLogSchema = teeAgentsResponseSchema.shape.eventLog.unwrap();

/**
 * Reads the event log a dstack `GetQuote` returns (a JSON array as a string). Undefined when the TEE gave none
 * or gave something else, so a strange log is left out of the answer rather than breaking it.
 */
export function parseEventLog(eventLog: string | undefined): TeeEventLog | undefined {
  if (!eventLog) return undefined;
  try {
    const parsed = eventLogSchema.safeParse(JSON.parse(eventLog));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
