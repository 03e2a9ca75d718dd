import type { ReplyConsumer, ReplyStream } from '../messaging/reply-stream';
import type { ParleyMetrics } from './create-metrics';

/**
 * Counts one reply in the metrics as a consumer of its part stream, like the room's consumer: `reply-start`
 * starts it, `reply-end` ends it as stored or empty with the model's time, `error` ends it as an error with the
 * model error code. Attach it to new replies only (not to a stored reply replayed for a client).
 *
 * @example
 * new MessagingService({ ...options, consumers: [roomDelivery(broadcaster), observingReplies(metrics)] });
 */
export function observeReply(
  stream: Pick<ReplyStream, 'subscribe'>,
  metrics: ParleyMetrics,
  now: () => number = () => performance.now(),
): void {
  let started: number | undefined;
  stream.subscribe((part) => {
    switch (part.type) {
      case 'reply-start':
        started = now();
        metrics.replyStarted();
        return;
      case 'reply-end':
        if (started === undefined) return;
        metrics.observeModelLatency(now() - started);
        metrics.replyFinished(part.message ? 'stored' : 'empty');
        return;
      case 'error':
        if (started === undefined) return;
        metrics.modelError(part.code);
        metrics.replyFinished('error');
        return;
    }
  });
}

/** {@link observeReply} as a consumer the messaging service hands every new reply to. */
export const observingReplies =
  (metrics: ParleyMetrics): ReplyConsumer =>
  (reply) =>
    observeReply(reply, metrics);
