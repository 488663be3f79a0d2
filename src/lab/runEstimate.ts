// The one estimate of how long a run takes on this machine: the Lab's "about … here", the queue's ETAs, a
// lesson's arms, a teacher's sizes and a class sitting all call it, so the page never shows two times for
// the same runs. Pure: it scales the times this backend measured (its stored runs, else its calibration
// figure; backendChoice.ts stepSamplesFor) to the run asked about. A run is
//   its start (model build, starting point load, the warm-up steps' shader compiles and the end's checkpoint
//   and samples) + its steps × the step time + its evaluations × the evaluation time.
// The start is measured per run (its wall time less its steps and evaluations at their means): leaving it out
// said 57 s for smoke arms that took ~90 s, where the start is half the run.
import type { LabConfig } from './config.ts';

/** a measured run (a queued one, a stored run on this backend, or the calibration's default step) */
export interface StepSample {
  config: LabConfig;
  /** its mean optimiser step (ms; warm-up steps and evaluations left out) */
  meanStepMs: number;
  /** its mean evaluation (ms), where it recorded one */
  meanEvalMs?: number;
  /** its time outside steps and evaluations at their means (ms): the start, the warm-up's excess, the end */
  startMs?: number;
  /** not a run: the backend calibration's figure for a default step (backendChoice.ts stepSamplesFor) */
  calibration?: boolean;
}

/** relative cost of one step: the policy's size (s : m : l parameters ≈ 1 : 2 : 4.7) times the rollouts per step */
const SCALE_COST: Record<LabConfig['scale'], number> = { s: 1, m: 2, l: 4.7 };
/**
 * A step's and an evaluation's cost is not linear in their rollouts: decoding runs one pass per token for the whole
 * batch, so a step has a part that does not grow with its rollouts, as an evaluation has with its queries. Both are
 * affine, their fixed part counted in rollouts (queries). Measured with the CLI at m on the 2-core machine
 * (wasm, 1 thread; results/lessons/README.md): a step of 2 rollouts 1.47 s, of 32 rollouts 8.4 s (0.23 s a
 * rollout + 1.0 s ≈ 4.4 rollouts); an evaluation of 4 queries 2.0 s, of 400 25 s (0.058 s a query + 1.8 s ≈ 30
 * queries). Scaled linearly instead, a smoke arm's times said 19 min for a full arm that took 5.
 */
export const STEP_FIXED_ROLLOUTS = 4.4;
export const EVAL_FIXED_QUERIES = 30;
const stepCost = (c: LabConfig) => SCALE_COST[c.scale] * (c.groupSize * c.queriesPerStep + STEP_FIXED_ROLLOUTS);
/** an evaluation's relative cost: the policy's size times the queries and tasks it rolls out, plus its fixed part */
const evalCost = (c: LabConfig) => SCALE_COST[c.scale] * (c.evalQueries + c.evalToolQa + EVAL_FIXED_QUERIES);
/** a start's relative cost: the policy's size (building it, loading its weights, compiling its shaders) */
const startCost = (c: LabConfig) => SCALE_COST[c.scale];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/**
 * `value` for `config` from the samples that measured it: the median per unit of `cost`, times the config's
 * cost, over the nearest samples — the same scale and rollouts per step if any ran so, else the same scale,
 * else all (a step's time is not linear in its rollouts: decoding batches them). null without a sample.
 */
function scaled(config: LabConfig, samples: readonly StepSample[], value: (s: StepSample) => number | undefined,
  cost: (c: LabConfig) => number): number | null {
  const usable = samples.filter((s) => { const v = value(s); return v !== undefined && Number.isFinite(v) && v >= 0; });
  const sameScale = usable.filter((s) => s.config.scale === config.scale);
  const rollouts = (c: LabConfig) => c.groupSize * c.queriesPerStep;
  const sameShape = sameScale.filter((s) => rollouts(s.config) === rollouts(config));
  const pool = sameShape.length ? sameShape : sameScale.length ? sameScale : usable;
  if (!pool.length) return null;
  return median(pool.map((s) => value(s)! / cost(s.config))) * cost(config);
}

/** a step time for `config` from measured ones (null without samples) */
export const estimateStepMs = (config: LabConfig, samples: readonly StepSample[]): number | null =>
  scaled(config, samples.filter((s) => s.meanStepMs > 0), (s) => s.meanStepMs, stepCost);

/** an evaluation's time for `config` from the runs that timed theirs (null when no run timed one) */
export const estimateEvalMs = (config: LabConfig, samples: readonly StepSample[]): number | null =>
  scaled(config, samples, (s) => (s.meanEvalMs && s.meanEvalMs > 0 ? s.meanEvalMs : undefined), evalCost);

/** a run's start for `config` from the runs that measured theirs (null when none did: runs of older builds) */
export const estimateStartMs = (config: LabConfig, samples: readonly StepSample[]): number | null =>
  scaled(config, samples, (s) => s.startMs, startCost);

/**
 * The evaluations a run still makes after `stepsDone` steps: every evalEvery steps and after the last one,
 * and the starting point's (step 0) while no step is done.
 */
export function evaluationsLeft(steps: number, evalEvery: number, stepsDone: number): number {
  if (stepsDone >= steps) return 0;
  const multiples = Math.floor(steps / evalEvery) - Math.floor(stepsDone / evalEvery);
  return (stepsDone === 0 ? 1 : 0) + multiples + (steps % evalEvery === 0 ? 0 : 1); // the last step evaluates too
}

export interface RunEstimate {
  /** the whole wait (ms) */
  ms: number;
  stepMs: number;
  steps: number;
  evalMs: number;
  evaluations: number;
  /** the start's share (0 once the run has stepped, or where nothing here measured one) */
  startMs: number;
  /** false where nothing here measured a start (no run, no calibration): the figure leaves it out, a floor */
  startMeasured: boolean;
}

/**
 * What is left of a run of `config` after `stepsDone` steps (0: the whole run, its start included): its steps at
 * the estimated step time, its evaluations at the estimated evaluation time (each counts as a step where no run
 * here timed one) and, before its first step, its start. null without any step time.
 */
export function estimateRunTime(config: LabConfig, samples: readonly StepSample[], stepsDone = 0): RunEstimate | null {
  const stepMs = estimateStepMs(config, samples);
  if (stepMs === null) return null;
  const evalMs = estimateEvalMs(config, samples) ?? stepMs;
  const start = stepsDone === 0 ? estimateStartMs(config, samples) : 0;
  const steps = Math.max(0, config.steps - stepsDone);
  const evaluations = evaluationsLeft(config.steps, config.evalEvery, stepsDone);
  const startMs = start ?? 0;
  const ms = startMs + stepMs * steps + evalMs * evaluations;
  return { ms, stepMs, steps, evalMs, evaluations, startMs, startMeasured: start !== null };
}

/**
 * The estimate rests on the calibration alone (no run on this backend at the scale, nor at any scale to scale from): a
 * first guess. It said 27 s for a smoke arm that took 109 s (results/lessons/time-estimates.json), as a short timing
 * of a default step scales badly down to 2 rollouts and knows nothing of loading the starting point: the page says
 * "or more" and that a finished run here makes it closer.
 */
export function isFirstGuess(config: LabConfig, samples: readonly StepSample[]): boolean {
  const ran = samples.filter((s) => !s.calibration && s.meanStepMs > 0);
  const sameScale = samples.some((s) => s.meanStepMs > 0 && s.config.scale === config.scale);
  return sameScale ? !ran.some((s) => s.config.scale === config.scale) : ran.length === 0;
}

/** how the page words an estimate: 'about 1 min 30 s', or 'a first guess of 25 s or more' */
export const estimateWords = (ms: number, firstGuess: boolean): string =>
  firstGuess ? `a first guess of ${formatEstimate(ms)} or more` : `about ${formatEstimate(ms)}`;

/** the whole wait of `estimateRunTime`, or null */
export const runTimeLeftMs = (config: LabConfig, stepsDone: number, samples: readonly StepSample[]): number | null =>
  estimateRunTime(config, samples, stepsDone)?.ms ?? null;

/**
 * Several runs' time: each (in order) on the worker that frees first, `atOnce` workers, a run taking `runMs[i]`.
 * Runs side by side share the machine, so each may be slower than alone: with atOnce > 1 a floor.
 */
export function runsTimeMs(runMs: readonly number[], atOnce: number): number {
  const free = Array.from({ length: Math.max(1, atOnce) }, () => 0);
  for (const ms of runMs) {
    const i = free.indexOf(Math.min(...free));
    free[i] += ms;
  }
  return Math.max(...free);
}

/**
 * An estimate, rounded to what an estimate can know: it aims within ×1.5 of the time taken, so '15 min 53 s'
 * would claim a precision it lacks. To 5 s under a minute, to half a minute under ten, to the minute under an
 * hour, then to 5 minutes: '25 s', '4 min 30 s', '16 min', '1 h 05 min'. A countdown of time left keeps
 * `formatEta`'s seconds.
 */
export function formatEstimate(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return formatEta(ms);
  const s = Math.max(0, ms / 1000);
  const step = s < 57.5 ? 5 : s < 585 ? 30 : s < 3570 ? 60 : 300;
  const rounded = Math.max(step, Math.round(s / step) * step);
  return formatEta(rounded * 1000).replace(/ min 00 s$/, ' min');
}

/** a run time: '3 min 20 s', '45 s', '1 h 05 min' ('…' for none) */
export function formatEta(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '…';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** a step time, the one way the page writes it: '480 ms' under a second, else seconds with one decimal ('9.5 s') */
export function formatStepTime(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '–';
  return Math.abs(ms) < 999.5 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
