/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** p50, p90, p99, max and count of samples in milliseconds. */
export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/** Milliseconds since `start`, a `process.hrtime.bigint()` reading. */
export function msSince(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** A CPU reading of this process, for {@link cpuPercentSince}. */
export function cpuMark() {
  return { cpu: process.cpuUsage(), time: process.hrtime.bigint() };
}

/** The CPU this process used since `mark`, in percent of one core. */
export function cpuPercentSince(mark) {
  const { user, system } = process.cpuUsage(mark.cpu);
  return ((user + system) / 1000 / msSince(mark.time)) * 100;
}
