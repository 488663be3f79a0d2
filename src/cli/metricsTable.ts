// The metrics table the sandbox commands print: TravelPlanner's six rates, then each check's
// pass / fail / not-applicable counts, so a failure is easy to locate.
import type { EvalMetrics, Verdicts } from '../env/types.ts';
import { COMMONSENSE_KEYS, HARD_KEYS } from '../env/types.ts';

export function metricsTable(metrics: EvalMetrics, verdicts: readonly Verdicts[]): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(7);
  const lines = [
    `plans                         ${String(metrics.count).padStart(7)}`,
    `delivery rate                 ${pct(metrics.deliveryRate)}`,
    `commonsense micro / macro     ${pct(metrics.commonsenseMicro)} ${pct(metrics.commonsenseMacro)}`,
    `hard micro / macro            ${pct(metrics.hardMicro)} ${pct(metrics.hardMacro)}`,
    `final pass rate               ${pct(metrics.finalPass)}`,
    '',
    `${'check'.padEnd(38)}  pass  fail   n/a`,
  ];
  const row = (key: string, results: (boolean | null | undefined)[]) => {
    const count = (v: boolean | null | undefined) => String(results.filter((r) => r === v).length).padStart(5);
    lines.push(
      `${key.padEnd(38)} ${count(true)} ${count(false)} ${count(null)}${results.includes(undefined) ? `  (not run: ${results.filter((r) => r === undefined).length})` : ''}`,
    );
  };
  for (const k of COMMONSENSE_KEYS) row(k, verdicts.map((v) => (v.delivered ? v.commonsense[k].pass : undefined)));
  for (const k of HARD_KEYS) row(k, verdicts.map((v) => v.hard?.[k].pass));
  return lines.join('\n');
}
