/** Formats a figure with as many decimals as its size deserves. */
export function formatValue(value, unit) {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

function verdict(row) {
  if (!row.target) return '';
  const [op, limit] = row.target;
  if (!Number.isFinite(row.value)) return 'no figure';
  const met = op === '<' ? row.value < limit : row.value >= limit;
  return met ? 'met' : 'MISSED';
}

/** The results as a plain-text table: figure, measured, target, elizaOS, and whether the target was met. */
export function formatTable(results) {
  const header = ['scenario', 'figure', 'measured', 'target', 'elizaOS', 'vs target'];
  const lines = [];
  for (const { title, rows, error } of results) {
    if (error) {
      lines.push([title, error, '', '', '', '']);
      continue;
    }
    rows.forEach((row, index) =>
      lines.push([
        index === 0 ? title : '',
        row.figure,
        formatValue(row.value, row.unit),
        row.target ? `${row.target[0]} ${row.target[1]} ${row.unit}` : '',
        row.eliza === undefined ? '' : `${row.eliza} ${row.unit}`,
        verdict(row),
      ]),
    );
  }
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...lines.map((line) => line[column].length)),
  );
  const format = (line) => line.map((cell, column) => cell.padEnd(widths[column])).join('  ');
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(format)]
    .map((line) => line.trimEnd())
    .join('\n');
}
