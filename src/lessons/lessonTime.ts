// How long a lesson's arms take on the learner's own machine, from the times its own stored runs measured on this
// backend (src/lab/backendChoice.ts stepSamplesFor), by the one run estimate (src/lab/runEstimate.ts) that the
// Lab and the queue use too. Pure: the lesson page, a teacher's sizes and the class view word it. An arm is its
// start, its steps and its evaluations — the starting point's, every evalEvery steps, and the final one — and at
// the lessons' size (300 validation queries and 100 tool-QA tasks each) the evaluations are a large part of it.
import type { LabConfig } from '../lab/config.ts';
import {
  estimateWords,
  evaluationsLeft,
  formatEstimate,
  isFirstGuess,
  runsTimeMs,
  runTimeLeftMs,
  type StepSample,
} from '../lab/runEstimate.ts';
import { armConfig, type Lesson } from './lessons.ts';

/** the evaluations a run makes: the starting point's (step 0), every evalEvery steps, and after the last */
export const evaluationCount = (steps: number, evalEvery: number): number => evaluationsLeft(steps, evalEvery, 0);

/** One arm's time (src/lab/runEstimate.ts estimateRunTime). null without any step time. */
export const armTimeMs = (config: LabConfig, samples: readonly StepSample[]): number | null =>
  runTimeLeftMs(config, 0, samples);

/**
 * The time of `seedsAnArm` runs of each of the lesson's first `arms` arms at `size`, `atOnce` at a time (1: one
 * after the other; more: side by side, a floor, as runs side by side share the machine). null without a step time.
 * The lesson page (one sitting: 1 seed an arm), a teacher's sizes and the class view all say this figure.
 */
export function lessonTimeMs(lesson: Lesson, size: Partial<LabConfig>, samples: readonly StepSample[],
  o: { arms?: number; seedsAnArm?: number; atOnce?: number } = {}): number | null {
  const arms = lesson.arms.slice(0, o.arms ?? lesson.arms.length);
  const each = arms.map((arm) => armTimeMs(armConfig(arm, 1, size), samples));
  if (each.some((x) => x === null)) return null;
  return runsTimeMs(Array.from({ length: o.seedsAnArm ?? 1 }, () => each as number[]).flat(), o.atOnce ?? 1);
}

/** the lesson's time at `size` rests on the backend's calibration alone (runEstimate.ts isFirstGuess) */
export const lessonFirstGuess = (lesson: Lesson, size: Partial<LabConfig>, samples: readonly StepSample[]): boolean =>
  lesson.arms.some((arm) => isFirstGuess(armConfig(arm, 1, size), samples));

/**
 * The lab machine's measured time for the arms about to run: the measurement is of both arms, so one arm
 * side by side is the measured time and one after the other half of it. Said in words by the page.
 */
export function measuredFor(
  arms: number,
  measured: { wallSeconds: number; mode: string },
): { seconds: number; words: string } {
  if (arms > 1)
    return {
      seconds: measured.wallSeconds,
      words: `for both arms ${measured.mode === 'parallel' ? 'side by side' : 'one after the other'}`,
    };
  return {
    seconds: measured.mode === 'parallel' ? measured.wallSeconds : measured.wallSeconds / 2,
    words: 'for one arm',
  };
}

/** where a lesson's one time comes from */
export type EstimateSource = 'here' | 'lab' | 'first-guess';

export interface LessonEstimate {
  ms: number;
  source: EstimateSource;
  /** the time in words with where it holds: 'about 9 min 40 s here', 'about 16 min 0 s on the lab's 2-core machine' */
  words: string;
  /** the time alone: 'about 9 min 40 s' */
  short: string;
}

/**
 * The one time of a lesson at a size, said the same in the Lessons list, the lesson page, its sheet and the plan of
 * a period: this machine's estimate from its own runs (lessonTimeMs); before any run here at the full size, the time
 * measured on the lab's machine (`measured`, results/lessons/timings.json); else the calibration's first guess.
 * null: nothing to say yet.
 */
export function lessonEstimate(
  lesson: Lesson,
  size: Partial<LabConfig>,
  samples: readonly StepSample[],
  o: {
    arms?: number;
    seedsAnArm?: number;
    atOnce?: number;
    measured?: { wallSeconds: number; mode: string; cores: number } | null;
  } = {},
): LessonEstimate | null {
  const arms = o.arms ?? lesson.arms.length;
  const here = lessonTimeMs(lesson, size, samples, o);
  const guess = lessonFirstGuess(lesson, size, samples);
  const fullSize = Object.keys(size).length === 0;
  const seeds = o.seedsAnArm ?? 1;
  if (here !== null && !guess) {
    const short = `about ${formatEstimate(here)}`;
    return { ms: here, source: 'here', short, words: `${short} here` };
  }
  if (fullSize && o.measured && seeds === 1 && (o.atOnce ?? 1) === 1) {
    const ms = measuredFor(arms, o.measured).seconds * 1000;
    const short = `about ${formatEstimate(ms)}`;
    return {
      ms,
      source: 'lab',
      short,
      words: `${short} on the lab's ${o.measured.cores}-core machine`,
    };
  }
  if (here === null) return null;
  const short = estimateWords(here, true);
  return { ms: here, source: 'first-guess', short, words: `${short} here` };
}
