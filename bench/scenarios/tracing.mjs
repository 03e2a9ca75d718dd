import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { runLatencyClient, startModelServer, usageRows, withServer } from '../lib/harness.mjs';
import { ECHO_REQUEST } from '../lib/echo-upstream.mjs';
import { summarize } from '../lib/stats.mjs';

/** Measured phases per variant, alternated (off, on, off, on), so a drift of the machine hits both. */
const ROUNDS = 4;

/** The target: with every trace kept and exported, a reply costs under 15 % more server CPU than with tracing off. */
const MAX_RATIO = 1.15;

/** The target: with tracing off, a reply costs under 2 % more server CPU than with no tracing code at all. */
const MAX_OFF_RATIO = 1.02;

/** A local OTLP/HTTP sink: answers every export with 200 and counts the requests and bytes. */
async function startSink() {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk) => (received.bytes += chunk.length));
    request.on('end', () => {
      received.requests += 1;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

function emptyTotals() {
  return {
    samples: [],
    errors: 0,
    lastError: undefined,
    elapsedMs: 0,
    serverCpuMs: 0,
    peakRssMb: 0,
  };
}

function add(totals, { result, usage }) {
  totals.samples.push(...result.total);
  totals.errors += result.errors;
  totals.lastError = result.lastError ?? totals.lastError;
  totals.elapsedMs += usage.elapsedMs;
  totals.serverCpuMs += usage.serverCpuMs;
  totals.peakRssMb = Math.max(totals.peakRssMb, usage.peakRssMb);
}

function figures(totals) {
  const latency = summarize(totals.samples);
  return {
    latency,
    replies: latency.count,
    cpuPerReply: totals.serverCpuMs / latency.count,
    usage: {
      serverCpu: (totals.serverCpuMs / totals.elapsedMs) * 100,
      modelCpu: 0,
      peakRssMb: totals.peakRssMb,
    },
  };
}

/**
 * 12. The cost of traces: the same reply with one tool call (as `tool-reply`) on a server with tracing off and on
 * a server started with `OTEL_TRACES_EXPORTER=otlp`, every trace kept (`always_on`) and exported as protobuf to a
 * local sink (batched, as in production), and on a server with no tracing code on the reply's path at all
 * (`traceContext: false`). The three run at once; one client, mode sync, rounds alternated. The limit of traces
 * on is tracing off (< 15 %); the limit of tracing off is no tracing code (< 2 %).
 */
export default {
  id: 'tracing',
  title:
    '12. a tool reply with traces on (100 % sampled, exported) vs off vs no tracing code (1 client, sequential)',
  run: async (context) => {
    const model = await startModelServer({ script: 'echo-tool' });
    const sink = await startSink();
    try {
      const withModel = { ...context, model };
      const run = (absent, off, on) => async () => {
        const totals = {
          absent: emptyTotals(),
          off: emptyTotals(),
          on: emptyTotals(),
          roundRatios: [],
          offRatios: [],
        };
        const phaseMs = (context.durationS * 1000) / ROUNDS;
        for (let round = 0; round < ROUNDS; round++) {
          const perReply = {};
          for (const [variant, target] of Object.entries({ absent, off, on })) {
            const measured = await runLatencyClient(
              withModel,
              { server: target.server, name: `${target.name}-${variant}` },
              {
                url: target.url,
                path: `/api/messaging/channels/${target.channel}/messages`,
                body: { text: ECHO_REQUEST, entityId: 'bench-user', mode: 'sync' },
                mode: 'sync',
                warmupRequests: round === 0 ? 100 : 5,
                durationMs: phaseMs,
                maxRequests: 25_000,
                expectToolCalls: 1,
              },
            );
            add(totals[variant], measured);
            perReply[variant] = measured.usage.serverCpuMs / measured.result.total.length;
          }
          totals.roundRatios.push(perReply.on / perReply.off);
          totals.offRatios.push(perReply.off / perReply.absent);
        }
        return totals;
      };
      const totals = await withServer(
        withModel,
        'tracing-absent',
        (absent) =>
          withServer(
            withModel,
            'tracing-off',
            (off) =>
              withServer(
                withModel,
                'tracing-on',
                (on) =>
                  run(
                    { ...absent, channel: randomUUID() },
                    { ...off, channel: randomUUID() },
                    { ...on, channel: randomUUID() },
                  )(),
                { plugins: ['echo'], tracing: sink.url },
              ),
            { plugins: ['echo'] },
          ),
        { plugins: ['echo'], tracing: 'absent' },
      );
      const absent = figures(totals.absent);
      const off = figures(totals.off);
      const on = figures(totals.on);
      const ratio = on.cpuPerReply / off.cpuPerReply;
      const offRatio = off.cpuPerReply / absent.cpuPerReply;
      return {
        rows: [
          {
            figure: 'server CPU per reply, traces on',
            value: on.cpuPerReply,
            unit: 'ms',
            limit: off.cpuPerReply,
            ratioTarget: ['<', MAX_RATIO],
          },
          {
            figure: 'server CPU per reply, traces off',
            value: off.cpuPerReply,
            unit: 'ms',
            limit: absent.cpuPerReply,
            ratioTarget: ['<', MAX_OFF_RATIO],
          },
          { figure: 'p50 latency', value: on.latency.p50, unit: 'ms', limit: off.latency.p50 },
          { figure: 'p99 latency', value: on.latency.p99, unit: 'ms', limit: off.latency.p99 },
          ...usageRows(on.usage, undefined, { serverCpu: off.usage.serverCpu }).filter(
            (row) => row.figure !== 'model server CPU',
          ),
        ],
        notes: [
          `limit: the same tool reply on a server with tracing off, ${ROUNDS} alternated rounds each`,
          `CPU per reply ${on.cpuPerReply.toFixed(2)} ms traced vs ${off.cpuPerReply.toFixed(2)} ms off: ${ratio.toFixed(3)}× (target < ${MAX_RATIO}×, ${ratio < MAX_RATIO ? 'met' : 'not met'})`,
          `CPU per reply ratio by round: ${totals.roundRatios.map((value) => `${value.toFixed(3)}×`).join(', ')}`,
          `tracing off vs no tracing code (traceContext: false): ${off.cpuPerReply.toFixed(2)} ms vs ${absent.cpuPerReply.toFixed(2)} ms per reply, ${offRatio.toFixed(3)}× (target < ${MAX_OFF_RATIO}×, ${offRatio < MAX_OFF_RATIO ? 'met' : 'not met'}); by round: ${totals.offRatios.map((value) => `${value.toFixed(3)}×`).join(', ')}`,
          `the sink received ${sink.received.requests} exports, ${(sink.received.bytes / 1024).toFixed(0)} KiB`,
          `traced replies: ${on.replies}, ${totals.on.errors} errors ${totals.on.lastError ?? ''}`.trim(),
          `untraced replies: ${off.replies}, ${totals.off.errors} errors ${totals.off.lastError ?? ''}`.trim(),
          `replies without tracing code: ${absent.replies}, ${totals.absent.errors} errors ${totals.absent.lastError ?? ''}`.trim(),
        ],
      };
    } finally {
      await sink.stop();
      await model.stop();
    }
  },
};
