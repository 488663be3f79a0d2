// Gains over the SFT start, read across seeds (the RL recipe's curves; the findings tables reuse it).
// A run is one seed of one arm (the recipe, or its null control with shuffled advantages); its curve is the
// greedy validation success at each evaluation. A gain is end − start per seed; the arm's gain is the mean
// over seeds with a Student t interval (three seeds: a bootstrap would be too narrow); a gain whose
// interval holds 0 is "not resolved". Two arms are compared by a test of their difference
// (seedStatistics.ts: Welch, Holm), not by whether their intervals overlap — `intervalsApart` is a
// far stricter, descriptive reading the recipe report still prints beside the paired difference.
// Pure: no tfjs, no DOM, no fs.
import { tInterval, wilson, type Interval } from '../stats/intervals.ts';

/** one evaluation of one run */
export interface CurvePoint {
  step: number;
  /** greedy validation success */
  success: number;
  /** validation queries behind it */
  queries: number;
}

/** one seed of one arm */
export interface SeedRun {
  seed: number;
  curve: readonly CurvePoint[];
  /** wall seconds of the run */
  wallSeconds?: number;
  /** CPU seconds of the run (its cost on a shared machine) */
  cpuSeconds?: number;
}

export interface ArmSummary {
  seeds: number[];
  /** per seed: success at the first and last evaluation, and their difference */
  start: number[];
  end: number[];
  gain: number[];
  /** mean gain over seeds with its 95 % t interval (NaN ends for one seed) */
  meanGain: Interval;
  /** the seeds' final evaluations pooled as one proportion (Wilson): how well the arm ends */
  pooledEnd: Interval;
  /** the mean curve over seeds at the steps every seed evaluated */
  meanCurve: { step: number; success: number }[];
  /** mean wall and CPU seconds per run (NaN when not recorded) */
  wallSeconds: number;
  cpuSeconds: number;
}

export type GainCall = 'gain' | 'loss' | 'not resolved';

/** summarises the seeds of one arm; throws on no runs or a run without evaluations */
export function summariseArm(runs: readonly SeedRun[]): ArmSummary {
  if (runs.length === 0) throw new Error('summariseArm: no runs');
  for (const r of runs) if (r.curve.length === 0) throw new Error(`summariseArm: seed ${r.seed} has no evaluations`);
  const sorted = [...runs].sort((a, b) => a.seed - b.seed);
  const start = sorted.map((r) => r.curve[0].success);
  const end = sorted.map((r) => r.curve[r.curve.length - 1].success);
  const gain = end.map((e, i) => e - start[i]);
  const lasts = sorted.map((r) => r.curve[r.curve.length - 1]);
  const passed = lasts.reduce((a, p) => a + Math.round(p.success * p.queries), 0);
  const n = lasts.reduce((a, p) => a + p.queries, 0);
  const common = sorted[0].curve
    .map((p) => p.step)
    .filter((s) => sorted.every((r) => r.curve.some((p) => p.step === s)));
  const meanCurve = common.map((step) => ({
    step,
    success: sorted.reduce((a, r) => a + r.curve.find((p) => p.step === step)!.success, 0) / sorted.length,
  }));
  const meanOf = (xs: (number | undefined)[]) => {
    const known = xs.filter((x): x is number => typeof x === 'number');
    return known.length ? known.reduce((a, b) => a + b, 0) / known.length : NaN;
  };
  return {
    seeds: sorted.map((r) => r.seed),
    start, end, gain,
    meanGain: tInterval(gain),
    pooledEnd: wilson(passed, n),
    meanCurve,
    wallSeconds: meanOf(sorted.map((r) => r.wallSeconds)),
    cpuSeconds: meanOf(sorted.map((r) => r.cpuSeconds)),
  };
}

/** a gain whose interval lies above 0 is a gain, below 0 a loss, otherwise not resolved */
export function gainCall(i: Interval): GainCall {
  if (!(i.lo <= i.hi)) return 'not resolved'; // NaN ends: one seed
  if (i.lo > 0) return 'gain';
  if (i.hi < 0) return 'loss';
  return 'not resolved';
}

/** true when the two intervals do not overlap (and both are known) */
export function intervalsApart(a: Interval, b: Interval): boolean {
  if (!(a.lo <= a.hi) || !(b.lo <= b.hi)) return false;
  return a.lo > b.hi || b.lo > a.hi;
}

/** the per-seed difference real − null (paired by seed), with its t interval: the effect of the signal */
export function pairedDifference(real: ArmSummary, control: ArmSummary): Interval & { seeds: number[] } {
  const seeds = real.seeds.filter((s) => control.seeds.includes(s));
  const d = seeds.map((s) => real.gain[real.seeds.indexOf(s)] - control.gain[control.seeds.indexOf(s)]);
  return { ...tInterval(d), seeds };
}
