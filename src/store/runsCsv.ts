// The Runs view's table as data: one row per stored run with its config, its in-domain (validation
// success) and out-of-domain (tool-QA accuracy) results at the start and at the end, its status,
// duration and backend; and that table as CSV or JSON for a download. Pure: no DOM, no tfjs.
import Papa from 'papaparse';
import { SETTING_KEYS, type LabConfig } from '../lab/config.ts';
import { configFromRecord } from '../lab/urlState.ts';
import type { MetricPoint, RunRecord } from './records.ts';
import { METRIC } from '../lab/metricNames.ts';

/** one evaluation's headline results (undefined: not measured, e.g. no validation queries) */
export interface EvalResult {
  step: number;
  /** in-domain: validation success (share of held-out trips passing every check) */
  success?: number;
  /** out-of-domain: accuracy on unseen tool-QA tasks */
  ood?: number;
}

export interface RunResults {
  /** the evaluation at step 0 (the starting point), if the run made one */
  start: EvalResult | null;
  /** the last evaluation after step 0 */
  final: EvalResult | null;
}

export interface RunRow {
  run: RunRecord;
  config: LabConfig;
  results: RunResults;
  /** ms from the start to the last stored point (or the last update, for a run without points) */
  durationMs: number;
}

const isEval = (p: MetricPoint) =>
  p.values[METRIC.evalSuccess] !== undefined || p.values[METRIC.evalOodAccuracy] !== undefined;
const resultOf = (p: MetricPoint): EvalResult => ({
  step: p.step,
  success: p.values[METRIC.evalSuccess],
  ood: p.values[METRIC.evalOodAccuracy],
});

/** start = the step-0 evaluation, final = the last one after it */
export function runResults(points: readonly MetricPoint[]): RunResults {
  const evals = points.filter(isEval).sort((a, b) => a.step - b.step);
  const start = evals.find((p) => p.step === 0);
  const final = evals.filter((p) => p.step > 0).at(-1);
  return { start: start ? resultOf(start) : null, final: final ? resultOf(final) : null };
}

export function runRow(run: RunRecord, points: readonly MetricPoint[]): RunRow {
  const lastT = points.reduce((t, p) => Math.max(t, p.t), 0);
  return {
    run,
    config: configFromRecord(run.config).config,
    results: runResults(points),
    durationMs: lastT > 0 ? lastT : Math.max(0, run.updatedAt - run.createdAt),
  };
}

/** the CSV's columns, in order: the run, its results, then every setting (unique: no setting shares a name with a run
 * column) */
export const CSV_COLUMNS = [
  'id', 'kind', 'status', 'created', 'duration_s', 'backend', 'backend_choice', 'steps_done', 'total_steps',
  'start_step', 'start_success', 'start_ood', 'final_step', 'final_success', 'final_ood',
  ...SETTING_KEYS,
] as const;

/** one CSV record per row; numbers as they are, a missing result as an empty cell */
export function runsCsv(rows: readonly RunRow[]): string {
  const data = rows.map(({ run, config, results, durationMs }) => {
    const { start, final } = results;
    const record: Record<string, string | number> = {
      id: run.id,
      kind: run.kind,
      status: run.status,
      created: new Date(run.createdAt).toISOString(),
      duration_s: Math.round(durationMs / 100) / 10,
      backend: run.backend,
      backend_choice: run.calibration?.summary ?? '',
      steps_done: run.summary.steps,
      total_steps: run.summary.totalSteps,
      start_step: start?.step ?? '',
      start_success: start?.success ?? '',
      start_ood: start?.ood ?? '',
      final_step: final?.step ?? '',
      final_success: final?.success ?? '',
      final_ood: final?.ood ?? '',
    };
    for (const k of SETTING_KEYS) {
      const value = config[k];
      record[k] = Array.isArray(value) ? value.join(':') : (value as string | number);
    }
    return CSV_COLUMNS.map((c) => record[c]);
  });
  // a leading =, +, - or @ would run as a formula in a spreadsheet
  return Papa.unparse({ fields: [...CSV_COLUMNS], data }, { escapeFormulae: true, newline: '\n' }) + '\n';
}

export const RUNS_JSON_FORMAT = 'star-lab-runs/1';

/** the table as JSON: each run's record (config as stored), its results and duration */
export function runsJson(rows: readonly RunRow[], exportedAt = Date.now()): string {
  const runs = rows.map(({ run, results, durationMs }) => ({ ...run, results, durationMs }));
  return JSON.stringify({ format: RUNS_JSON_FORMAT, exportedAt, runs }, null, 2);
}

/** e.g. 42 s, 3 min 05 s, 1 h 02 min */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}
