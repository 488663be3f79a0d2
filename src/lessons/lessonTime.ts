// How long a lesson's arm takes on the learner's own machine (issue 39 part 5), from the step and evaluation
// times its own stored runs measured on this backend (src/lab/backendChoice.ts stepSamplesFor). Pure: the
// lesson page words it. An arm is its steps plus its evaluations — the starting point's, every evalEvery
// steps, and the final one — and at the lessons' size (300 validation queries and 100 tool-QA tasks each)
// the two evaluations are a large part of it, which the old "steps + 1" left out.
import type { LabConfig } from '../lab/config.ts';
import { estimateStepMs, type StepSample } from '../lab/runQueue.ts';

/** the evaluations a run makes: the starting point's (step 0), every evalEvery steps, and after the last */
export function evaluationCount(steps: number, evalEvery: number): number {
  return 1 + Math.floor(steps / evalEvery) + (steps % evalEvery === 0 ? 0 : 1);
}

const SCALE_COST: Record<LabConfig['scale'], number> = { s: 1, m: 2, l: 4.7 };
/** an evaluation's relative cost: the policy's size times the queries and tasks it rolls out */
const evalCost = (c: LabConfig) => SCALE_COST[c.scale] * Math.max(1, c.evalQueries + c.evalToolQa);

/**
 * An evaluation's time for `config` from the runs that timed theirs: the median time per unit of cost,
 * times this config's cost (same-scale runs when there are any). null when no run timed one.
 */
export function estimateEvalMs(config: LabConfig, samples: readonly StepSample[]): number | null {
  const usable = samples.filter((s): s is StepSample & { meanEvalMs: number } => Number.isFinite(s.meanEvalMs) && (s.meanEvalMs ?? 0) > 0);
  const same = usable.filter((s) => s.config.scale === config.scale);
  const pool = same.length ? same : usable;
  if (!pool.length) return null;
  const perCost = pool.map((s) => s.meanEvalMs / evalCost(s.config)).sort((a, b) => a - b);
  const mid = perCost.length >> 1;
  return (perCost.length % 2 ? perCost[mid] : (perCost[mid - 1] + perCost[mid]) / 2) * evalCost(config);
}

/**
 * One arm's time: its steps at the estimated step time plus its evaluations at the estimated evaluation
 * time; where no run here timed an evaluation (runs of older builds), each evaluation counts as one step,
 * as the estimate did before. null without any step time.
 */
export function armTimeMs(config: LabConfig, samples: readonly StepSample[]): number | null {
  const step = estimateStepMs(config, [...samples]);
  if (step === null) return null;
  const evaluation = estimateEvalMs(config, samples) ?? step;
  return step * config.steps + evaluation * evaluationCount(config.steps, config.evalEvery);
}

/**
 * The lab machine's measured time for the arms about to run: the measurement is of both arms, so one arm
 * side by side is the measured time and one after the other half of it. Said in words by the page.
 */
export function measuredFor(arms: number, measured: { wallSeconds: number; mode: string }): { seconds: number; words: string } {
  if (arms > 1) return { seconds: measured.wallSeconds, words: `for both arms ${measured.mode === 'parallel' ? 'side by side' : 'one after the other'}` };
  return { seconds: measured.mode === 'parallel' ? measured.wallSeconds : measured.wallSeconds / 2, words: 'for one arm' };
}
