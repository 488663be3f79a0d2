// A sweep's grid as one CSV: DIR/<finding>/runs.csv, one row per run of the finding's grid with its
// settings and end figures, so the whole grid opens in a spreadsheet or pandas without reading 23+ folders.
// A run not finished yet has its settings and `finished` = false, its figures empty.
import type { LabConfig } from '../lab/config.ts';
import { serializeHash } from '../lab/urlState.ts';
import { metricsCsv } from './metricsCsv.ts';
import type { RlSummary } from './rlRun.ts';

/** the settings every row shows as its own column (the rest are in `settings`, the run's link hash) */
const SETTING_COLUMNS = [
  'scale',
  'algorithm',
  'reward',
  'advantages',
  'seed',
  'steps',
  'trainSize',
  'toolFailureRate',
  'learningRate',
] as const;

export function gridCsv(runs: readonly { name: string; lab: LabConfig; summary: RlSummary | null }[]): string {
  const rows = runs.map(({ name, lab, summary: s }) => {
    const settings = Object.fromEntries(
      SETTING_COLUMNS.filter((k) => k in lab).map((k) => [k, String(lab[k as keyof LabConfig])]),
    );
    const figures = s
      ? {
          world: s.world ? `${s.world.size}:${s.world.seed}` : '',
          start_success: s.start.success,
          final_success: s.final.success,
          final_success_lo: s.final.successLo,
          final_success_hi: s.final.successHi,
          queries: s.final.queries ?? s.rl?.evalQueries,
          start_ood: s.start.ood,
          final_ood: s.final.ood,
          ood_tasks: s.rl?.evalToolQa,
          start_delivery: s.start.delivery,
          final_delivery: s.final.delivery,
          wall_seconds: s.wallSeconds,
          cpu_seconds: s.cpuSeconds,
          commit: s.commit,
        }
      : {};
    return { run: name, finished: s !== null, ...settings, settings: serializeHash(lab), ...figures };
  });
  return metricsCsv(rows, [
    'run',
    'finished',
    ...SETTING_COLUMNS,
    'settings',
    'world',
    'start_success',
    'final_success',
    'final_success_lo',
    'final_success_hi',
    'queries',
  ]);
}
