import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { CSV_COLUMNS, formatDuration, runResults, runRow, runsCsv, runsJson } from '../../src/store/runsCsv.ts';
import { SETTING_KEYS, defaultConfig } from '../../src/lab/config.ts';
import type { MetricPoint, RunRecord } from '../../src/store/records.ts';

const run = (id: string, config: Record<string, unknown>, extra: Partial<RunRecord> = {}): RunRecord => ({
  id,
  kind: 'rl',
  config,
  status: 'completed',
  createdAt: Date.UTC(2025, 0, 2, 3, 4, 5),
  updatedAt: Date.UTC(2025, 0, 2, 3, 4, 5) + 90_000,
  backend: 'webgpu · swiftshader',
  summary: { steps: 4, totalSteps: 4, last: {} },
  ...extra,
});
const point = (runId: string, step: number, t: number, values: Record<string, number>): MetricPoint => ({ runId, step, t, values });

describe('runs table', () => {
  it('takes the step-0 evaluation as the start and the last later one as the final result', () => {
    const points = [
      point('a', 0, 5, { 'eval/success': 0.2, 'eval/ood_accuracy': 0.5 }),
      point('a', 1, 10, { 'reward/mean': 0.3 }),
      point('a', 2, 20, { 'eval/success': 0.3, 'eval/ood_accuracy': 0.45, 'reward/mean': 0.4 }),
      point('a', 4, 40, { 'eval/ood_accuracy': 0.4 }),
    ];
    expect(runResults(points)).toEqual({ start: { step: 0, success: 0.2, ood: 0.5 }, final: { step: 4, success: undefined, ood: 0.4 } });
    expect(runResults([point('a', 3, 1, { 'eval/success': 1 })])).toEqual({ start: null, final: { step: 3, success: 1, ood: undefined } });
    expect(runResults([point('a', 1, 1, { 'reward/mean': 1 })])).toEqual({ start: null, final: null });
  });

  it('measures the duration to the last point, or the last update without points', () => {
    expect(runRow(run('a', {}), [point('a', 1, 3_000, {}), point('a', 2, 61_000, {})]).durationMs).toBe(61_000);
    expect(runRow(run('a', {}), []).durationMs).toBe(90_000);
    expect(formatDuration(42_400)).toBe('42 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(3_720_000)).toBe('1 h 02 min');
  });

  it('writes one CSV record per run with its results and every setting', () => {
    const rows = [
      runRow(run('run-1', { scale: 'm', steps: 4, reward: 'sum', algorithm: 'arpo', mix: [1, 2, 3], toolFailureRate: 0.1 }, {
        calibration: { mode: 'forced', scale: 'm', figures: [], choice: null, measuredAt: null, summary: 'forced with ?backend=webgpu' },
      }), [
        point('run-1', 0, 1, { 'eval/success': 0.25, 'eval/ood_accuracy': 0.5 }),
        point('run-1', 4, 12_345, { 'eval/success': 0.375, 'eval/ood_accuracy': 0.75 }),
      ]),
      // an unreadable setting falls back to its default; a formula-like id is defused
      runRow(run('=HYPERLINK("x")', { scale: 'huge' }, { kind: 'sft', status: 'failed' }), []),
    ];
    const csv = runsCsv(rows);
    const parsed = Papa.parse<Record<string, string>>(csv.trim(), { header: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields).toEqual([...CSV_COLUMNS]);
    expect(CSV_COLUMNS).toEqual(expect.arrayContaining(SETTING_KEYS));
    const [a, b] = parsed.data;
    expect(a).toMatchObject({
      id: 'run-1', kind: 'rl', status: 'completed', created: '2025-01-02T03:04:05.000Z', duration_s: '12.3', backend: 'webgpu · swiftshader', backend_choice: 'forced with ?backend=webgpu',
      steps_done: '4', total_steps: '4', steps: '4', start_step: '0', start_success: '0.25', start_ood: '0.5', final_step: '4', final_success: '0.375', final_ood: '0.75',
      scale: 'm', reward: 'sum', algorithm: 'arpo', mix: '1:2:3', toolFailureRate: '0.1',
    });
    expect(b).toMatchObject({ id: `'=HYPERLINK("x")`, kind: 'sft', status: 'failed', scale: defaultConfig().scale, start_success: '', final_ood: '', backend_choice: '' });
  });

  it('writes the table as JSON with each run and its results', () => {
    const rows = [runRow(run('run-1', { scale: 'l' }), [point('run-1', 0, 1, { 'eval/success': 0.5 })])];
    const json = JSON.parse(runsJson(rows, 7));
    expect(json.format).toBe('star-lab-runs/1');
    expect(json.exportedAt).toBe(7);
    expect(json.runs[0]).toMatchObject({ id: 'run-1', config: { scale: 'l' }, results: { start: { step: 0, success: 0.5 }, final: null } });
  });
});
