import type { StoredMessage } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { ReplyStream } from '../reply/parts/reply-stream';
import { createMetrics } from './create-metrics';
import { MAX_TOOL_LABELS, type ToolCallOutcome, observeReply } from './observe-reply';

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
      toolCalls: [],
    });
    failed.write({ type: 'error', replyId: 'r2', code: 'TIMEOUT', message: 'The model timed out' });
    empty.write({
      type: 'reply-end',
      replyId: 'r3',
      message: null,
      text: '',
      actions: ['IGNORE'],
      thought: undefined,
      toolCalls: [],
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

  it('counts each tool call by tool and outcome, with a bounded set of tool labels', () => {
    const counted = new Map<string, number>();
    const metrics = {
      ...createMetrics({ processMetrics: false }),
      toolCallFinished(tool: string, outcome: ToolCallOutcome) {
        const key = `${tool}/${outcome}`;
        counted.set(key, (counted.get(key) ?? 0) + 1);
      },
    };
    const stream = started('r4');
    observeReply(stream, metrics);
    let n = 0;
    const result = (toolName: string, error?: string) => {
      n += 1;
      const ids = { replyId: 'r4', toolCallId: `call-${n}`, toolName, step: 0 };
      stream.write({ type: 'tool-call', ...ids, input: {} });
      stream.write({ type: 'tool-result', ...ids, ...(error ? { error } : { output: 'ok' }) });
    };
    result('LOOKUP');
    result('LOOKUP');
    result('LOOKUP', 'Timed out after 100 ms');
    // A name the model made up is never a label of its own.
    result('INVENTED', 'Unknown tool INVENTED');
    for (let i = 0; i < MAX_TOOL_LABELS + 5; i += 1) result(`TOOL_${i}`);
    result('LOOKUP');

    expect(counted.get('LOOKUP/ok')).toBe(3);
    expect(counted.get('LOOKUP/error')).toBe(1);
    expect(counted.has('INVENTED/error')).toBe(false);
    expect(counted.get('other/error')).toBe(1);
    // LOOKUP took one of the labels: the next 99 names keep theirs, the last 6 are `other`.
    expect(counted.get(`TOOL_${MAX_TOOL_LABELS - 2}/ok`)).toBe(1);
    expect(counted.has(`TOOL_${MAX_TOOL_LABELS - 1}/ok`)).toBe(false);
    expect(counted.get('other/ok')).toBe(6);
    const labels = new Set([...counted.keys()].map((key) => key.split('/')[0]));
    expect(labels.size).toBe(MAX_TOOL_LABELS + 1);
  });
});
