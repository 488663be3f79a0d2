// How long a lesson's arm takes on the learner's own machine, from the step and evaluation
// times its own stored runs measured on this backend (src/lab/backendChoice.ts stepSamplesFor). Pure: the
// lesson page words it. An arm is its steps plus its evaluations — the starting point's, every evalEvery
// steps, and the final one — and at the lessons' size (300 validation queries and 100 tool-QA tasks each)
// the two evaluations are a large part of it, which the old "steps + 1" left out.
import type { LabConfig } from '../lab/config.ts';
import { evaluationsLeft, runTimeLeftMs, type StepSample } from '../lab/runQueue.ts';

/** the evaluations a run makes: the starting point's (step 0), every evalEvery steps, and after the last */
export const evaluationCount = (steps: number, evalEvery: number): number => evaluationsLeft(steps, evalEvery, 0);

/**
 * One arm's time: its steps at the estimated step time plus its evaluations at the estimated evaluation
 * time (src/lab/runQueue.ts runTimeLeftMs, which the queue's ETA uses too). null without any step time.
 */
export const armTimeMs = (config: LabConfig, samples: readonly StepSample[]): number | null => runTimeLeftMs(config, 0, samples);

/**
 * The lab machine's measured time for the arms about to run: the measurement is of both arms, so one arm
 * side by side is the measured time and one after the other half of it. Said in words by the page.
 */
export function measuredFor(arms: number, measured: { wallSeconds: number; mode: string }): { seconds: number; words: string } {
  if (arms > 1) return { seconds: measured.wallSeconds, words: `for both arms ${measured.mode === 'parallel' ? 'side by side' : 'one after the other'}` };
  return { seconds: measured.mode === 'parallel' ? measured.wallSeconds : measured.wallSeconds / 2, words: 'for one arm' };
}
