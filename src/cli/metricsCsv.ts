// metrics.jsonl rows → CSV: one column per metric name (the union over all rows, `kind` and `step`
// first), empty cells where a row lacks a metric (evaluation rows carry only eval/…). `first`: the columns
// that lead (a sweep's runs.csv leads with the run's name).
export function metricsCsv(
  rows: readonly Record<string, unknown>[],
  first: readonly string[] = ['kind', 'step'],
): string {
  const keys = new Set<string>(first);
  for (const r of rows) for (const k of Object.keys(r)) keys.add(k);
  const cols = [...keys];
  const cell = (v: unknown) => {
    if (v === undefined || v === null) return '';
    const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [cols.join(','), ...rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join('\n') + '\n';
}
