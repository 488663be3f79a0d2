// A finding's grid as the lab's runs, and the user's own runs read back as the finding's results: which
// distinct runs a grid needs at the user's settings (gridRuns), the stored run that fills a cell
// (findRunFor), a run's first and last evaluations as a table's figures (runResultOf), and the seeds the
// user ran a grid at (gridSeedConfigs). The page queues the runs (src/lab/runQueue.ts) and draws the tables
// and gain charts from the results. Pure data and functions: no DOM, no tfjs.
import { defaultConfig, type LabConfig, SETTING_KEYS, type SettingKey } from '../lab/config.ts';
import { configFromRecord, formatValue, serializeHash } from '../lab/urlState.ts';
import type { RunFigures, RunResult } from './findingTable.ts';
import { cellConfig, nullControls, type Finding } from './findings.ts';
import { METRIC } from '../lab/metricNames.ts';

/** one distinct run of a finding's grid; cells that share a config (T2's in-domain/OOD) share the run */
export interface GridRun {
  /** the cells it fills, 'row · col' */
  cells: string[];
  config: LabConfig;
  /** the config's identity: its non-default settings, as the URL writes them */
  key: string;
}

/** a config's identity for matching stored runs to grid cells (only non-default settings, stable order) */
export function configKey(config: LabConfig): string {
  return serializeHash(config).replace(/^#/, '');
}

/** an RL run's identity: World size left out, since RL trains in its starting point's world (a run stores the one it
 * used) */
function rlConfigKey(config: LabConfig): string {
  return configKey({ ...config, worldSize: defaultConfig().worldSize });
}

/** The user's settings that differ from the defaults (the stage excepted: a grid is always RL). */
export function userOverrides(config: LabConfig): Partial<LabConfig> {
  const defaults = defaultConfig();
  const out: Partial<Record<SettingKey, unknown>> = {};
  for (const k of SETTING_KEYS) {
    if (k !== 'stage' && formatValue(k, config[k]) !== formatValue(k, defaults[k])) out[k] = config[k];
  }
  return out as Partial<LabConfig>;
}

/** the settings every cell of a grid takes from the user (with `cellConfig` they give a cell's run) */
export function gridCommon(user: LabConfig): Partial<LabConfig> {
  return { ...userOverrides(user), stage: 'rl' };
}

/**
 * The distinct runs of a finding's grid: defaults ← the finding's base ← the user's non-default
 * settings ← the cell's own settings (the axis the finding varies always wins), in cell order.
 */
export function gridRuns(f: Finding, user: LabConfig): GridRun[] {
  const common = gridCommon(user);
  const byKey = new Map<string, GridRun>();
  for (const cell of f.cells) {
    const config = cellConfig(f, cell, common);
    if (!config) continue; // an SFT cell: read from the starting point, not run
    const key = configKey(config);
    const run = byKey.get(key);
    if (run) run.cells.push(`${cell.row} · ${cell.col}`);
    else byKey.set(key, { cells: [`${cell.row} · ${cell.col}`], config, key });
  }
  return [...byKey.values()];
}

// ---- the user's own results ------------------------------------------------------------------------

/** what matching needs of a stored run (a RunRecord fits) */
export interface StoredRun {
  id: string;
  kind: string;
  status: string;
  config: Record<string, unknown>;
  startingPoint?: Record<string, unknown>;
  updatedAt: number;
}

/**
 * The newest completed RL run of exactly this config that started from the shipped checkpoint
 * (as queued grid runs do; a run from the user's own SFT run measures something else).
 */
export function findRunFor<R extends StoredRun>(runs: readonly R[], config: LabConfig): R | undefined {
  const key = rlConfigKey(config);
  return runs
    .filter((r) => r.kind === 'rl' && r.status === 'completed' && (r.startingPoint?.kind ?? 'shipped') === 'shipped')
    .filter((r) => rlConfigKey(configFromRecord(r.config).config) === key)
    .sort((a, b) => b.updatedAt - a.updatedAt)[0];
}

/** evaluation figures from a metric point's values (absent ones are NaN: the table shows them as missing) */
export function evalFigures(values: Record<string, number>): RunFigures {
  const at = (k: string) => values[k] ?? Number.NaN;
  return {
    success: at(METRIC.evalSuccess),
    delivery: at(METRIC.evalDelivery),
    csMicro: at(METRIC.evalCsMicro),
    hardMicro: at(METRIC.evalHardMicro),
    ood: at(METRIC.evalOodAccuracy),
    successLo: at(METRIC.evalSuccessLo),
    successHi: at(METRIC.evalSuccessHi),
    queries: at(METRIC.evalQueries),
    sampleSuccess: at(METRIC.evalSampleSuccess),
    sampleSuccessLo: at(METRIC.evalSampleSuccessLo),
    sampleSuccessHi: at(METRIC.evalSampleSuccessHi),
    samples: at(METRIC.evalSamples),
  };
}

/** a stored run's result for a finding's table: its first and last evaluation points */
export function runResultOf(
  run: StoredRun & { createdAt: number },
  points: readonly { step: number; values: Record<string, number> }[],
): RunResult | undefined {
  const evals = points
    .filter((p) => Object.keys(p.values).some((k) => k.startsWith('eval/')))
    .sort((a, b) => a.step - b.step);
  if (!evals.length) return undefined;
  return {
    start: evalFigures(evals[0].values),
    final: evalFigures(evals[evals.length - 1].values),
    wallSeconds: (run.updatedAt - run.createdAt) / 1000,
    where: run.id,
  };
}

/**
 * The configs of a finding's grid at every seed the user has run it with (a seed counts when at least
 * one cell, or the null control, has a finished run at it), the null control's included: what the page's
 * gain chart reads the user's runs from. Sorted by seed.
 */
export function gridSeedConfigs<R extends StoredRun>(
  f: Finding,
  user: LabConfig,
  runs: readonly R[],
): { seeds: number[]; configs: LabConfig[] } {
  const common = gridCommon(user);
  const base = [...gridRuns(f, user).map((g) => g.config), ...nullControls(f, common).map((n) => n.config)];
  const candidates = new Set(
    runs.filter((r) => r.kind === 'rl' && r.status === 'completed').map((r) => configFromRecord(r.config).config.seed),
  );
  const seeds = [...candidates]
    .filter((seed) => base.some((c) => findRunFor(runs, { ...c, seed })))
    .sort((a, b) => a - b);
  return { seeds, configs: seeds.flatMap((seed) => base.map((c) => ({ ...c, seed }))) };
}
