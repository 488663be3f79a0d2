// The reference a lesson draws behind the learner's run: for each setting a lesson runs, the committed
// standard runs of exactly that setting (results/findings/runs/, one folder per seed), reduced to what the
// page needs — per training metric and step, the mean over seeds and the 95 % band one new run is expected
// in; per seed, the early and late means of each metric and the start and end validation success. The CLI
// (`npm run cli -- lessons`) writes it to results/lessons/reference.json, which the page bundles; rerun it
// as more seeds land. Pure: no fs, no tfjs, no DOM.
//
// The band is a prediction interval, mean ± t(n−1) · s · √(1 + 1/n): where a single further run of the
// setting should land 95 % of the time, which is the question a learner's one run asks. The interval of
// the mean (tInterval, narrower by √(n + 1)) is what the findings' tables report; the takeaway gives both.
import { defaultConfig, type LabConfig } from '../lab/config.ts';
import { studentTQuantile } from '../stats/intervals.ts';
import { armConfig, LESSON_SIZE, LESSONS, runWindows } from './lessons.ts';
import { ema, metricInfo, metricName } from '../lab/metrics.ts';
import { pooledSd } from '../stats/seedStatistics.ts';
import { serializeHash } from '../lab/urlState.ts';

export const LESSON_REFERENCE_FORMAT = 'star-lab-lesson-reference/1';
/** the EMA weight of the reference curves and of the learner's curve drawn against them */
export const REFERENCE_SMOOTHING = 0.75;

/** over seeds, per step 1…steps: the mean and the 95 % band for one run (null where it cannot be computed) */
export interface Band {
  mean: (number | null)[];
  lo: (number | null)[];
  hi: (number | null)[];
}

export interface SettingReference {
  /** the setting's link without the seed (settingKey) */
  key: string;
  /** the committed seeds behind every figure below, ascending */
  seeds: number[];
  /** training steps of each run */
  steps: number;
  /** per training metric: the band over the seeds' EMA-smoothed curves (REFERENCE_SMOOTHING) */
  train: Record<string, Band>;
  /** per training metric, per seed: the raw mean over the first and the last quarter of the steps (runWindows) */
  windows: Record<string, { early: number[]; late: number[] }>;
  /** greedy validation success per seed at the first and the last evaluation (shares), and the queries behind each */
  eval: { start: number[]; end: number[]; queries: number; steps: [number, number] };
  /** per seed: the run's wall and CPU seconds (Node, wasm, on the machine that ran the findings) */
  wallSeconds: number[];
  cpuSeconds: number[];
  /** the folders behind it, relative to the repository */
  where: string[];
}

export interface LessonReference {
  format: typeof LESSON_REFERENCE_FORMAT;
  /** the command that wrote it, and when */
  command: string;
  date: string;
  smoothing: number;
  settings: Record<string, SettingReference>;
}

/** The setting an arm's reference is: its config's link without the seed (`reward=curriculum&evalEvery=40&…`). */
export function settingKey(config: LabConfig): string {
  return serializeHash({ ...config, seed: defaultConfig().seed }).replace(/^#/, '');
}

/** the settings every lesson runs, each once, with the training metrics its lessons draw */
export function lessonSettings(): { key: string; config: LabConfig; metrics: string[] }[] {
  const out = new Map<string, { key: string; config: LabConfig; metrics: Set<string> }>();
  for (const lesson of LESSONS) {
    const needed = [
      ...lesson.charts.map((c) => c.metric),
      ...(lesson.judge.kind === 'rises' ? lesson.judge.metrics : []),
    ];
    for (const arm of lesson.arms) {
      const config = armConfig(arm, defaultConfig().seed);
      const key = settingKey(config);
      const entry = out.get(key) ?? { key, config, metrics: new Set<string>() };
      for (const m of needed) entry.metrics.add(m);
      out.set(key, entry);
    }
  }
  return [...out.values()].map((e) => ({ key: e.key, config: e.config, metrics: [...e.metrics].sort() }));
}

/** mean and the 95 % prediction band of `values` for one further draw; null ends below two values */
export function predictionBand(
  values: readonly number[],
  level = 0.95,
): { mean: number | null; lo: number | null; hi: number | null } {
  const n = values.length;
  if (n === 0) return { mean: null, lo: null, hi: null };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, lo: null, hi: null };
  const s = pooledSd([values]).sd; // one sample: its own SD
  const half = studentTQuantile(1 - (1 - level) / 2, n - 1) * s * Math.sqrt(1 + 1 / n);
  return { mean, lo: mean - half, hi: mean + half };
}

/** where one run's end success falls against a setting's committed seeds: the 95 % prediction band of their end
 *  successes (clamped to [0, 1]) and the verdict, or null where fewer than two seeds make no band */
export function placeInBand(
  end: number,
  ref: SettingReference,
): { verdict: 'inside' | 'above' | 'below'; lo: number; hi: number; mean: number } | null {
  if (ref.seeds.length < 2) return null;
  const b = predictionBand(ref.eval.end);
  if (b.lo === null || b.hi === null || b.mean === null) return null;
  const [lo, hi] = [Math.max(0, b.lo), Math.min(1, b.hi)];
  return { verdict: end < lo ? 'below' : end > hi ? 'above' : 'inside', lo, hi, mean: b.mean };
}

/** a band's ends kept where the metric can be: every lesson metric is ≥ 0, and a rate ≤ 1 */
function clampTo(metric: string, x: number | null): number | null {
  if (x === null) return null;
  const top = metricInfo(metricName(metric)).format === 'rate' ? 1 : Infinity;
  return Math.min(top, Math.max(0, x));
}

/** one committed run, as the CLI read it from its folder */
export interface CommittedRun {
  seed: number;
  where: string;
  /** the training points of steps 1…steps, in order (metric → value) */
  train: Record<string, number>[];
  /** its evaluations, in step order */
  evals: { step: number; success: number; queries: number }[];
  wallSeconds: number;
  cpuSeconds: number;
}

const round = (x: number | null, digits = 5): number | null =>
  x === null || !Number.isFinite(x) ? null : Number(x.toPrecision(digits));
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** the mean of a metric over the steps from..to (1-based, inclusive) of one run's training points */
export function windowMean(
  train: readonly Record<string, number>[],
  metric: string,
  [from, to]: readonly [number, number],
): number | null {
  const xs = train
    .slice(from - 1, to)
    .map((p) => p[metric])
    .filter((x): x is number => Number.isFinite(x));
  return xs.length ? mean(xs) : null;
}

/** Reduces the committed runs of one setting to its reference; throws when they do not agree on the run's length. */
export function settingReference(
  key: string,
  runs: readonly CommittedRun[],
  metrics: readonly string[],
  smoothing = REFERENCE_SMOOTHING,
): SettingReference {
  if (runs.length === 0) throw new Error(`${key}: no committed runs`);
  const sorted = [...runs].sort((a, b) => a.seed - b.seed);
  const steps = sorted[0].train.length;
  for (const r of sorted) {
    if (r.train.length !== steps)
      throw new Error(
        `${key}: seed ${r.seed} has ${r.train.length} training steps, seed ${sorted[0].seed} has ${steps}`,
      );
    if (r.evals.length < 2)
      throw new Error(
        `${key}: seed ${r.seed} has ${r.evals.length} evaluation(s); a reference needs the start and the end`,
      );
  }
  const train: Record<string, Band> = {};
  const windows: Record<string, { early: number[]; late: number[] }> = {};
  for (const metric of metrics) {
    const smoothed = sorted.map((r) =>
      ema(
        r.train.map((p) => (Number.isFinite(p[metric]) ? p[metric] : null)),
        smoothing,
      ),
    );
    const band: Band = { mean: [], lo: [], hi: [] };
    for (let i = 0; i < steps; i++) {
      const b = predictionBand(smoothed.map((c) => c[i]).filter((x): x is number => x !== null));
      band.mean.push(round(b.mean));
      band.lo.push(round(clampTo(metric, b.lo)));
      band.hi.push(round(clampTo(metric, b.hi)));
    }
    train[metric] = band;
    const { early: first, late: last } = runWindows(steps);
    const early = sorted.map((r) => windowMean(r.train, metric, first));
    const late = sorted.map((r) => windowMean(r.train, metric, last));
    if (early.every((x) => x !== null) && late.every((x) => x !== null)) {
      windows[metric] = { early: early.map((x) => round(x)!), late: late.map((x) => round(x)!) };
    }
  }
  const first = sorted.map((r) => r.evals[0]);
  const last = sorted.map((r) => r.evals[r.evals.length - 1]);
  return {
    key,
    seeds: sorted.map((r) => r.seed),
    steps,
    train,
    windows,
    eval: {
      start: first.map((e) => round(e.success)!),
      end: last.map((e) => round(e.success)!),
      queries: Math.min(...last.map((e) => e.queries)),
      steps: [first[0].step, last[0].step],
    },
    wallSeconds: sorted.map((r) => Math.round(r.wallSeconds)),
    cpuSeconds: sorted.map((r) => Math.round(r.cpuSeconds)),
    where: sorted.map((r) => r.where),
  };
}

/** a reference as written, its training metrics under the names they have now (a committed reference keeps the
 *  names its runs were recorded with: `success` for `charts/success`) */
export function referenceWithMetricNames(ref: LessonReference): LessonReference {
  const renamed = <T>(byMetric: Record<string, T>) =>
    Object.fromEntries(Object.entries(byMetric).map(([k, x]) => [metricName(k), x]));
  const settings = Object.fromEntries(Object.entries(ref.settings).map(([key, s]) =>
    [key, { ...s, train: renamed(s.train), windows: renamed(s.windows) }]));
  return { ...ref, settings };
}

/**
 * The shipped starting point at `scale` as the lessons measure it: the step-0 evaluation of the committed runs of the
 * lessons' plain setting (GRPO, the sum reward, at the lessons' size) — its success and the queries behind it. The
 * Starting point card sets it beside its own figure (fewer queries, free decoding), so the two are not read as one
 * figure that changed. null where the reference has no such setting or no step-0 figure.
 */
export function lessonStartOf(
  reference: LessonReference | null,
  scale: LabConfig['scale'],
): { success: number; queries: number } | null {
  const key = settingKey({ ...defaultConfig(), ...LESSON_SIZE, scale } as LabConfig);
  const ref = reference?.settings[key];
  const start = ref?.eval.start[0];
  return ref && start !== undefined && ref.eval.queries > 0 ? { success: start, queries: ref.eval.queries } : null;
}
