import { SpanKind, type Tracer } from '@opentelemetry/api';
import { inActiveSpan } from './in-span';
import { withLogFields } from './log-context';

/** The socket events a `message` envelope carries, by its `type` (1 ROOM_JOINING, 2 SEND_MESSAGE). */
const MESSAGE_EVENTS: Record<number, string> = { 1: 'ROOM_JOINING', 2: 'SEND_MESSAGE' };

/** The event a `message` envelope names (`ROOM_JOINING`, `SEND_MESSAGE`), else `message`: few span names. */
export function messageEventOf(raw: unknown): string {
  const type = (raw as { type?: unknown } | null | undefined)?.type;
  return (typeof type === 'number' && MESSAGE_EVENTS[type]) || 'message';
}

/**
 * How each socket event is handled: with the socket's id on every log line written for it (and by the reply it
 * starts), and, with a tracer, in a SERVER span `socket.io {event}` that ends when the event's work settles
 * (its acknowledgment sent) and is the parent of the reply it starts.
 */
export function socketEventObserver(tracer: Tracer | undefined) {
  return (socket: { id: string }, event: string, work: () => Promise<void> | undefined): void => {
    const fields = { socketId: socket.id };
    if (!tracer) {
      void withLogFields(fields, work);
      return;
    }
    const attributes = { 'parley.socket.id': socket.id, 'parley.socket.event': event };
    void withLogFields(fields, () =>
      inActiveSpan(
        tracer,
        { name: `socket.io ${event}`, kind: SpanKind.SERVER, attributes },
        async () => {
          await work();
        },
      ),
    );
  };
}
