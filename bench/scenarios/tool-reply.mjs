import { randomUUID } from 'node:crypto';
import { runLatencyClient, startModelServer, usageRows, withServer } from '../lib/harness.mjs';
import { ECHO_REQUEST } from '../lib/echo-upstream.mjs';
import { alternateRounds, cpuRatio, repliesNote, variantFigures } from '../lib/variants.mjs';

/** Measured phases per variant, alternated (plain, tool, plain, tool), so a drift of the machine hits both. */
const ROUNDS = 4;

/**
 * The target: a reply with one tool call costs at most 2× a plain reply of the same server. A plain reply is
 * the reply's fixed work F (the HTTP request and response, the user's message stored, the history, the reply
 * stored) plus one model step S; a tool reply is F + 2S + the call C (arguments validated, the action run, its
 * parts written, the calls stored with the reply). (F + 2S + C) / (F + S) ≤ 2 exactly when C ≤ F: a call of a
 * trivial action must cost no more than the rest of a whole request.
 */
const MAX_RATIO = 2;

const VARIANTS = {
  plain: { text: 'Hello, how are you today?', expectToolCalls: 0 },
  tool: { text: ECHO_REQUEST, expectToolCalls: 1 },
};

/**
 * 10. A reply with one tool call against a plain reply, in the same run, on the same server: the server has an
 * action plugin (`lib/echo-plugin.mjs`, `ECHO {text}`) and the OpenAI-compatible provider points at a fake
 * upstream (`lib/echo-upstream.mjs`) that answers a request ending with the user's echo request with a streamed
 * `tool_calls` call of ECHO, a request ending with the tool's result with the text answer, and anything else
 * with the plain answer. One client, mode sync, one request after the other, each variant in its own channel.
 * The limit is the plain reply: its figures are the "limit" column, and the CPU per reply's target is a ratio.
 */
export default {
  id: 'tool-reply',
  title: '10. a reply with one tool call vs a plain reply (1 client, sequential)',
  run: async (context) => {
    const model = await startModelServer({ script: 'echo-tool' });
    try {
      const withModel = { ...context, model };
      const { totals, roundRatios } = await withServer(
        withModel,
        'tool-reply',
        async ({ url, server, name }) => {
          const channels = { plain: randomUUID(), tool: randomUUID() };
          const phaseMs = (context.durationS * 1000) / ROUNDS;
          return alternateRounds(ROUNDS, Object.keys(VARIANTS), (variant, round) =>
            runLatencyClient(
              withModel,
              { server, name: `${name}-${variant}` },
              {
                url,
                path: `/api/messaging/channels/${channels[variant]}/messages`,
                body: { text: VARIANTS[variant].text, entityId: 'bench-user', mode: 'sync' },
                mode: 'sync',
                // The first round warms the path up and fills the history window (20 messages).
                warmupRequests: round === 0 ? 100 : 5,
                durationMs: phaseMs,
                maxRequests: 25_000,
                expectToolCalls: VARIANTS[variant].expectToolCalls,
              },
            ),
          );
        },
        { plugins: ['echo'] },
      );
      const plain = variantFigures(totals.plain);
      const tool = variantFigures(totals.tool);
      const cpu = cpuRatio({
        figure: 'server CPU per reply, one tool call',
        measured: tool,
        limit: plain,
        maxRatio: MAX_RATIO,
        what: 'with one tool call',
        limitWhat: 'plain',
      });
      return {
        rows: [
          cpu.row,
          { figure: 'p50 latency', value: tool.latency.p50, unit: 'ms', limit: plain.latency.p50 },
          { figure: 'p99 latency', value: tool.latency.p99, unit: 'ms', limit: plain.latency.p99 },
          {
            figure: 'throughput',
            value: tool.perSecond,
            unit: 'replies/s',
            limit: plain.perSecond,
          },
          {
            figure: 'model calls per reply',
            value: tool.modelCallsPerReply,
            unit: '',
            limit: plain.modelCallsPerReply,
          },
          // Peak RSS is the one process's, read after each phase: no limit beside it.
          ...usageRows(tool.usage, tool.clientCpu, { serverCpu: plain.usage.serverCpu }),
        ],
        notes: [
          `limit: a plain reply of the same server and upstream (the ECHO tool offered, not called), ${ROUNDS} alternated rounds each`,
          cpu.note,
          `CPU per reply ratio by round: ${roundRatios.map((value) => `${value.toFixed(2)}×`).join(', ')}`,
          repliesNote('tool', totals.tool),
          repliesNote('plain', totals.plain),
        ],
      };
    } finally {
      await model.stop();
    }
  },
};
