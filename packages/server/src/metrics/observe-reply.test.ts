import type { StoredMessage } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { ReplyStream } from '../messaging/reply-stream';
import { createMetrics } from './create-metrics';
import { observeReply } from './observe-reply';

function started(replyId: string) {
  const stream = new ReplyStream(replyId, 'channel-1', 'message-1');
  stream.write({
    type: 'reply-start',
    replyId,
    channelId: 'channel-1',
    agentId: 'agent-1',
    agentName: 'Eliza',
    inReplyTo: 'message-1',
  });
  return stream;
}

describe('observeReply', () => {
  it('counts replies in flight and by outcome, with the model time and error codes', async () => {
    const metrics = createMetrics({ processMetrics: false });
    let clock = 1_000;
    const stored = started('r1');
    const failed = started('r2');
    const empty = started('r3');
    for (const stream of [stored, failed, empty]) observeReply(stream, metrics, () => clock);
    expect((await metrics.render()).body).toContain('parley_replies_in_flight 3');

    clock += 250;
    stored.write({
      type: 'reply-end',
      replyId: 'r1',
      message: { id: 'r1' } as StoredMessage,
      text: 'hi',
      actions: ['REPLY'],
      thought: undefined,
    });
    failed.write({ type: 'error', replyId: 'r2', code: 'TIMEOUT', message: 'The model timed out' });
    empty.write({
      type: 'reply-end',
      replyId: 'r3',
      message: null,
      text: '',
      actions: ['IGNORE'],
      thought: undefined,
      reason: 'ignored',
    });

    const text = (await metrics.render()).body;
    expect(text).toContain('parley_replies_in_flight 0');
    expect(text).toContain('parley_replies_total{outcome="stored"} 1');
    expect(text).toContain('parley_replies_total{outcome="empty"} 1');
    expect(text).toContain('parley_replies_total{outcome="error"} 1');
    expect(text).toContain('parley_model_errors_total{code="TIMEOUT"} 1');
    expect(text).toContain('parley_model_duration_seconds_sum 0.5');
    expect(text).toContain('parley_model_duration_seconds_count 2');
  });
});
