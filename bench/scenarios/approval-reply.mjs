import { randomUUID } from 'node:crypto';
import { measureCpu, startModelServer, withServer } from '../lib/harness.mjs';
import { ECHO_REQUEST } from '../lib/echo-upstream.mjs';
import { alternateRounds, cpuRatio, repliesNote, variantFigures } from '../lib/variants.mjs';

/** Measured phases per variant, alternated (direct, approved, direct, approved). */
const ROUNDS = 4;

/**
 * The target (issue 42): a reply whose tool call waits for a person costs under 2.5× the same reply whose call
 * runs at once. It makes three requests instead of one (the message, the decision, the events followed to the
 * end) and, on top of the plain reply's statements, stores the pause (one statement), takes the decision (one),
 * claims the reply with its decisions (one) and records the call's start and the end (one each); a pause must
 * not cost more than those requests themselves.
 */
const MAX_RATIO = 2.5;

const json = { 'content-type': 'application/json' };

/** One reply whose ECHO call runs at once: the sync answer. */
async function direct(url, channelId) {
  const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ text: ECHO_REQUEST, entityId: 'bench-user', mode: 'sync' }),
  });
  const body = await response.json();
  if (response.status !== 200 || body.agentResponse?.toolCalls?.length !== 1) {
    throw new Error(`direct reply: ${response.status}`);
  }
}

/** One reply whose ECHO call waits: the paused sync answer, the approval, the events to `done`. */
async function approved(url, channelId) {
  const asked = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      text: ECHO_REQUEST,
      entityId: 'bench-user',
      mode: 'sync',
      metadata: { approve: true },
    }),
  });
  const paused = await asked.json();
  const request = paused.awaitingApproval?.[0];
  if (asked.status !== 202 || !request) throw new Error(`paused reply: ${asked.status}`);
  const decided = await fetch(`${url}/api/messaging/replies/${paused.replyId}/approvals`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ toolCallId: request.toolCallId, approved: true }),
  });
  await decided.arrayBuffer();
  if (decided.status !== 202) throw new Error(`decision: ${decided.status}`);
  const events = await (
    await fetch(`${url}/api/messaging/replies/${paused.replyId}/events`)
  ).text();
  if (!events.includes('event: done')) throw new Error('the approved reply did not end');
}

/** Runs `reply` one after the other for `durationMs`; each reply's milliseconds. */
async function loop(reply, url, channelId, durationMs) {
  const samples = [];
  let errors = 0;
  let lastError;
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    const start = performance.now();
    try {
      await reply(url, channelId);
      samples.push(performance.now() - start);
    } catch (error) {
      errors += 1;
      lastError = error.message;
    }
  }
  return { samples, errors, lastError };
}

/**
 * 11. A reply whose one tool call needs a person's approval (paused, approved, followed to its end) against the
 * same reply whose call runs at once, in the same run, on the same server (`lib/echo-plugin.mjs`'s ECHO with
 * `needsApproval` for messages that ask for it, the `tool-reply` scenario's fake upstream). One client in the
 * bench process, requests one after the other, each variant in its own channel.
 */
export default {
  id: 'approval-reply',
  title: '11. a reply paused for approval vs the same reply without (1 client, sequential)',
  run: async (context) => {
    const model = await startModelServer({ script: 'echo-tool' });
    try {
      const withModel = { ...context, model };
      const { totals } = await withServer(
        withModel,
        'approval-reply',
        async ({ url, server, name }) => {
          const variants = { direct, approved };
          const channels = {};
          for (const variant of Object.keys(variants)) {
            channels[variant] = randomUUID();
            // Warm-up: the path compiled and the history window (20 messages) filled.
            for (let i = 0; i < 25; i++) await variants[variant](url, channels[variant]);
          }
          const phaseMs = (context.durationS * 1000) / ROUNDS / 2;
          return alternateRounds(ROUNDS, Object.keys(variants), (variant) =>
            measureCpu(withModel, { server, name: `${name}-${variant}` }, () =>
              loop(variants[variant], url, channels[variant], phaseMs),
            ),
          );
        },
        { plugins: ['echo-approval'] },
      );
      const plain = variantFigures(totals.direct);
      const paused = variantFigures(totals.approved);
      const cpu = cpuRatio({
        figure: 'server CPU per reply, paused and approved',
        measured: paused,
        limit: plain,
        maxRatio: MAX_RATIO,
        what: 'paused and approved',
        limitWhat: 'direct',
      });
      return {
        rows: [
          cpu.row,
          {
            figure: 'p50 latency (3 requests)',
            value: paused.latency.p50,
            unit: 'ms',
            limit: plain.latency.p50,
          },
          {
            figure: 'p99 latency (3 requests)',
            value: paused.latency.p99,
            unit: 'ms',
            limit: plain.latency.p99,
          },
        ],
        notes: [
          `limit: the same reply with its call run at once, ${ROUNDS} alternated rounds each`,
          cpu.note,
          repliesNote('approved', totals.approved),
          repliesNote('direct', totals.direct),
        ],
      };
    } finally {
      await model.stop();
    }
  },
};
