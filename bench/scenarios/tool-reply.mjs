import { randomUUID } from 'node:crypto';
import { runLatencyClient, startModelServer, usageRows, withServer } from '../lib/harness.mjs';
import { ECHO_REQUEST } from '../lib/echo-upstream.mjs';
import { summarize } from '../lib/stats.mjs';

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

function emptyTotals() {
  return {
    samples: [],
    errors: 0,
    lastError: undefined,
    elapsedMs: 0,
    serverCpuMs: 0,
    modelCpuMs: 0,
    modelRequests: 0,
    clientCpuMs: 0,
    peakRssMb: 0,
  };
}

/** Adds one measured phase (`runLatencyClient`'s answer) to a variant's totals. */
function add(totals, { result, usage }) {
  totals.samples.push(...result.total);
  totals.errors += result.errors;
  totals.lastError = result.lastError ?? totals.lastError;
  totals.elapsedMs += usage.elapsedMs;
  totals.serverCpuMs += usage.serverCpuMs;
  totals.modelCpuMs += (usage.modelCpu * usage.elapsedMs) / 100;
  totals.modelRequests += usage.modelRequests;
  totals.clientCpuMs += (result.clientCpu * result.elapsedMs) / 100;
  totals.peakRssMb = Math.max(totals.peakRssMb, usage.peakRssMb);
}

/** A variant's figures: latency, replies, CPU per reply, and `usage` in `usageRows`' shape. */
function figures(totals) {
  const latency = summarize(totals.samples);
  const replies = latency.count;
  return {
    latency,
    replies,
    perSecond: (replies / totals.elapsedMs) * 1000,
    cpuPerReply: totals.serverCpuMs / replies,
    modelCallsPerReply: totals.modelRequests / (replies + totals.errors),
    clientCpu: (totals.clientCpuMs / totals.elapsedMs) * 100,
    usage: {
      serverCpu: (totals.serverCpuMs / totals.elapsedMs) * 100,
      modelCpu: (totals.modelCpuMs / totals.elapsedMs) * 100,
      peakRssMb: totals.peakRssMb,
    },
  };
}

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
      const totals = await withServer(
        withModel,
        'tool-reply',
        async ({ url, server, name }) => {
          const channels = { plain: randomUUID(), tool: randomUUID() };
          const byVariant = { plain: emptyTotals(), tool: emptyTotals(), roundRatios: [] };
          const phaseMs = (context.durationS * 1000) / ROUNDS;
          for (let round = 0; round < ROUNDS; round++) {
            const perReply = {};
            for (const [variant, { text, expectToolCalls }] of Object.entries(VARIANTS)) {
              const measured = await runLatencyClient(
                withModel,
                { server, name: `${name}-${variant}` },
                {
                  url,
                  path: `/api/messaging/channels/${channels[variant]}/messages`,
                  body: { text, entityId: 'bench-user', mode: 'sync' },
                  mode: 'sync',
                  // The first round warms the path up and fills the history window (20 messages).
                  warmupRequests: round === 0 ? 100 : 5,
                  durationMs: phaseMs,
                  maxRequests: 25_000,
                  expectToolCalls,
                },
              );
              add(byVariant[variant], measured);
              perReply[variant] = measured.usage.serverCpuMs / measured.result.total.length;
            }
            byVariant.roundRatios.push(perReply.tool / perReply.plain);
          }
          return byVariant;
        },
        { plugins: ['echo'] },
      );
      const plain = figures(totals.plain);
      const tool = figures(totals.tool);
      const ratio = tool.cpuPerReply / plain.cpuPerReply;
      return {
        rows: [
          {
            figure: 'server CPU per reply, one tool call',
            value: tool.cpuPerReply,
            unit: 'ms',
            limit: plain.cpuPerReply,
            ratioTarget: ['<', MAX_RATIO],
          },
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
          `CPU per reply ${tool.cpuPerReply.toFixed(2)} ms with one tool call vs ${plain.cpuPerReply.toFixed(2)} ms plain: ${ratio.toFixed(2)}× (target < ${MAX_RATIO}×, ${ratio < MAX_RATIO ? 'met' : 'not met'})`,
          `CPU per reply ratio by round: ${totals.roundRatios.map((value) => `${value.toFixed(2)}×`).join(', ')}`,
          `tool replies: ${tool.replies}, ${totals.tool.errors} errors ${totals.tool.lastError ?? ''}`.trim(),
          `plain replies: ${plain.replies}, ${totals.plain.errors} errors ${totals.plain.lastError ?? ''}`.trim(),
        ],
      };
    } finally {
      await model.stop();
    }
  },
};
