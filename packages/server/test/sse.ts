/** One parsed server-sent event. */
export interface ParsedEvent {
  event: string;
  id?: string;
  data: unknown;
}

/**
 * Parses a whole server-sent event body into its events. Comments are dropped, and so are blocks without data
 * (the `retry:` a stream opens with), as an EventSource does.
 */
export function parseSse(body: string): ParsedEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const event: ParsedEvent = { event: 'message', data: undefined };
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1).trimStart();
        if (field === 'event') event.event = value;
        else if (field === 'id') event.id = value;
        else if (field === 'data') event.data = JSON.parse(value);
      }
      return event;
    })
    .filter((event) => event.data !== undefined);
}
