import { summarize } from './stats.mjs';

// Two variants of one reply measured against each other on one server, phases alternated round by round so a
// drift of the machine hits both: the totals, the figures and the ratio row and notes the scenarios share
// (tool-reply, approval-reply).

/** Empty totals of one variant's measured phases. */
export function emptyTotals() {
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

/** The milliseconds of each reply of a phase: `runLatencyClient`'s `total`, or a loop's own `samples`. */
const samplesOf = (result) => result.total ?? result.samples;

/**
 * Adds one measured phase to a variant's totals: `runLatencyClient`'s answer, or `measureCpu`'s around a loop
 * that gives `{samples, errors, lastError}` (no client CPU then).
 */
export function addPhase(totals, { result, usage }) {
  totals.samples.push(...samplesOf(result));
  totals.errors += result.errors;
  totals.lastError = result.lastError ?? totals.lastError;
  totals.elapsedMs += usage.elapsedMs;
  totals.serverCpuMs += usage.serverCpuMs;
  totals.modelCpuMs += (usage.modelCpu * usage.elapsedMs) / 100;
  totals.modelRequests += usage.modelRequests;
  totals.clientCpuMs += ((result.clientCpu ?? 0) * (result.elapsedMs ?? 0)) / 100;
  totals.peakRssMb = Math.max(totals.peakRssMb, usage.peakRssMb);
}

/**
 * Runs `rounds` rounds, each measuring every variant once in the order given (`measure(variant, round)`, which
 * answers like `runLatencyClient` or `measureCpu`), and adds each phase to its variant's totals. `roundRatios`:
 * each round's server CPU per reply of the second variant over the first's.
 */
export async function alternateRounds(rounds, variants, measure) {
  const totals = Object.fromEntries(variants.map((variant) => [variant, emptyTotals()]));
  const roundRatios = [];
  for (let round = 0; round < rounds; round++) {
    const perReply = {};
    for (const variant of variants) {
      const measured = await measure(variant, round);
      addPhase(totals[variant], measured);
      perReply[variant] = measured.usage.serverCpuMs / samplesOf(measured.result).length;
    }
    roundRatios.push(perReply[variants[1]] / perReply[variants[0]]);
  }
  return { totals, roundRatios };
}

/** A variant's figures: latency, replies, CPU per reply, and `usage` in `usageRows`' shape. */
export function variantFigures(totals) {
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
 * The server-CPU-per-reply row of `measured` against `limit` (both {@link variantFigures}), with its ratio
 * target, and the note that says the ratio: "CPU per reply … ms `what` vs … ms `limitWhat`: r× (target …)".
 */
export function cpuRatio({ figure, measured, limit, maxRatio, what, limitWhat }) {
  const ratio = measured.cpuPerReply / limit.cpuPerReply;
  return {
    row: {
      figure,
      value: measured.cpuPerReply,
      unit: 'ms',
      limit: limit.cpuPerReply,
      ratioTarget: ['<', maxRatio],
    },
    note: `CPU per reply ${measured.cpuPerReply.toFixed(2)} ms ${what} vs ${limit.cpuPerReply.toFixed(2)} ms ${limitWhat}: ${ratio.toFixed(2)}× (target < ${maxRatio}×, ${ratio < maxRatio ? 'met' : 'not met'})`,
  };
}

/** "`label` replies: n, e errors <last error>". */
export function repliesNote(label, totals) {
  return `${label} replies: ${totals.samples.length}, ${totals.errors} errors ${totals.lastError ?? ''}`.trim();
}
