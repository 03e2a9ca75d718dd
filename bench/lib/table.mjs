/** Formats a figure with as many decimals as its size deserves. */
export function formatValue(value, unit) {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

/** Whether a row's figure meets its target: `met`, `MISSED`, or '' without a target. */
export function verdict(row) {
  const checks = [];
  if (row.target) checks.push([row.value, row.target]);
  if (row.ratioTarget) checks.push([ratioOf(row), row.ratioTarget]);
  if (checks.length === 0) return '';
  if (checks.some(([value]) => !Number.isFinite(value))) return 'no figure';
  const met = checks.every(([value, [op, limit]]) => (op === '<' ? value < limit : value >= limit));
  return met ? 'met' : 'MISSED';
}

/** The target column: an absolute target, a target as a ratio to the limit, or both. */
function targetText(row) {
  const parts = [];
  if (row.target) parts.push(`${row.target[0]} ${row.target[1]} ${row.unit}`);
  if (row.ratioTarget) parts.push(`${row.ratioTarget[0]} ${row.ratioTarget[1]}× limit`);
  return parts.join(', ');
}

/**
 * Parley's figure divided by the bare server's (its limit): below 1 for throughput means slower than the
 * limit, above 1 for latency, CPU and memory means more than the limit.
 */
export function ratioOf(row) {
  return Number.isFinite(row.value) && Number.isFinite(row.limit) && row.limit !== 0
    ? row.value / row.limit
    : undefined;
}

/** Parley's figure divided by the durable bare server's (the second limit, which also stores each message). */
export function durableRatioOf(row) {
  return Number.isFinite(row.value) && Number.isFinite(row.durable) && row.durable !== 0
    ? row.value / row.durable
    : undefined;
}

const formatRatio = (ratio) =>
  ratio === undefined ? '' : `${ratio.toFixed(ratio >= 10 ? 1 : 2)}×`;

/**
 * The results as a plain-text table: figure, measured, the bare server's figure (limit) and the ratio to it,
 * target, elizaOS, and whether the target was met.
 */
export function formatTable(results) {
  const header = [
    'scenario',
    'figure',
    'measured',
    'limit',
    'ratio',
    'durable limit',
    'ratio',
    'target',
    'elizaOS',
    'vs target',
  ];
  const lines = [];
  for (const { title, rows, error } of results) {
    if (error) {
      lines.push([title, error, '', '', '', '', '', '', '', '']);
      continue;
    }
    rows.forEach((row, index) => {
      const ratio = ratioOf(row);
      lines.push([
        index === 0 ? title : '',
        row.figure,
        formatValue(row.value, row.unit),
        row.limit === undefined ? '' : formatValue(row.limit, row.unit),
        formatRatio(ratio),
        row.durable === undefined ? '' : formatValue(row.durable, row.unit),
        formatRatio(durableRatioOf(row)),
        targetText(row),
        row.eliza === undefined ? '' : `${row.eliza} ${row.unit}`,
        verdict(row),
      ]);
    });
  }
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...lines.map((line) => line[column].length)),
  );
  const format = (line) => line.map((cell, column) => cell.padEnd(widths[column])).join('  ');
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(format)]
    .map((line) => line.trimEnd())
    .join('\n');
}

/** The results as plain data for the JSON file: every row with its ratio and verdict. */
export function resultsJson(results) {
  return results.map(({ id, title, rows, notes, error }) => ({
    id,
    title,
    ...(error
      ? { error }
      : {
          notes,
          rows: rows.map((row) => ({
            ...row,
            ratio: ratioOf(row),
            durableRatio: durableRatioOf(row),
            verdict: verdict(row) || undefined,
          })),
        }),
  }));
}
