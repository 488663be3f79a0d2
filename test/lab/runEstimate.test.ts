import { describe, expect, it } from 'vitest';
import { chooseByFigures, stepSamplesFor, type BackendFigure, type Calibration } from '../../src/lab/backendChoice.ts';
import { estimateRunTime, estimateWords, formatEstimate, formatEta, formatStepTime, isFirstGuess } from '../../src/lab/runEstimate.ts';
import { enqueue, emptyQueue, queueEta } from '../../src/lab/runQueue.ts';
import { formatMetric, metricInfo } from '../../src/lab/metrics.ts';
import { armConfig, LESSONS, SMOKE_SIZE } from '../../src/lessons/lessons.ts';
import { lessonFirstGuess, lessonTimeMs } from '../../src/lessons/lessonTime.ts';

const lesson = LESSONS[0];
const smokeArm = armConfig(lesson.arms[0], 1, SMOKE_SIZE); // at m: 6 steps, evaluated at 0, 2, 4, 6
const figure: BackendFigure = {
  backend: 'wasm', label: 'wasm · simd · 1 thread', status: 'measured', decodeStepMs: 5, trainMicroBatchMs: 40, stepMs: 1_900, atLeastMs: null, costMs: 9_000,
};
const calibration: Calibration = {
  scale: 'm', device: { adapter: '', userAgent: 'Chrome/140', labVersion: 'x', cores: 2, isolated: true },
  figures: [figure], choice: chooseByFigures([figure]) ?? 'wasm', measuredAt: 1, costMs: 9_000,
};
/** a completed smoke arm that stepped at 3 s, evaluated at 2 s and took 60 s in all */
const smokeRun = {
  kind: 'rl', backend: 'wasm · simd · 1 thread', status: 'completed', config: { ...smokeArm } as Record<string, unknown>,
  summary: { steps: 6, meanStepMs: 3_000, meanEvalMs: 2_000, wallMs: 60_000 },
};

describe('the run estimate', () => {
  it('counts a run\'s start, measured as what its wall time has beyond its steps and evaluations', () => {
    const samples = stepSamplesFor([smokeRun], 'wasm', [calibration]);
    expect(samples).toHaveLength(1);
    expect(samples[0].startMs).toBe(60_000 - 6 * 3_000 - 4 * 2_000);
    // the same setup again takes what that run took: the old steps + evaluations said 26 s of its 60 s
    expect(estimateRunTime(smokeArm, samples)).toMatchObject({ ms: 60_000, steps: 6, evaluations: 4, startMeasured: true });
    // once stepping, the start is behind it
    expect(estimateRunTime(smokeArm, samples, 3)?.ms).toBe(3 * 3_000 + 2 * 2_000);
  });

  it('scales from the nearest runs: same scale and rollouts per step first, a start by the model\'s size', () => {
    const bigger = { ...smokeRun, config: { ...smokeArm, groupSize: 8, queriesPerStep: 4 }, summary: { ...smokeRun.summary, meanStepMs: 30_000 } };
    const samples = stepSamplesFor([smokeRun, bigger], 'wasm', []);
    // a smoke arm's step from the smoke run alone (decoding batches rollouts: 16× the rollouts is not 16× the step)
    expect(estimateRunTime(smokeArm, samples)?.stepMs).toBe(3_000);
    const atS = estimateRunTime({ ...smokeArm, scale: 's' }, stepSamplesFor([smokeRun], 'wasm', []))!;
    expect(atS.startMs).toBe(34_000 / 2);
  });

  it('from the calibration alone takes its start from what building and warming its model cost there', () => {
    // 9 s in all, less its 8 timed decode steps (5 ms) and its timed micro-batch (40 ms)
    expect(estimateRunTime(smokeArm, stepSamplesFor([], 'wasm', [calibration]))!.startMs).toBe(9_000 - 8 * 5 - 40);
    const unmeasured = { ...calibration, figures: [{ ...figure, decodeStepMs: null }] };
    expect(estimateRunTime(smokeArm, stepSamplesFor([], 'wasm', [unmeasured]))!.startMeasured).toBe(false);
  });

  it('from the calibration alone is a first guess, said so; once a run here has finished, not', () => {
    expect(isFirstGuess(smokeArm, stepSamplesFor([], 'wasm', [calibration]))).toBe(true);
    expect(lessonFirstGuess(lesson, SMOKE_SIZE, stepSamplesFor([], 'wasm', [calibration]))).toBe(true);
    expect(isFirstGuess(smokeArm, stepSamplesFor([smokeRun], 'wasm', [calibration]))).toBe(false);
    // a run at s says nothing firmer about m, whose calibration figure is its own
    const atS = { ...smokeRun, config: { ...smokeArm, scale: 's' } };
    expect(isFirstGuess(smokeArm, stepSamplesFor([atS], 'wasm', [calibration]))).toBe(true);
    expect(estimateWords(27_000, true)).toBe('a first guess of 25 s or more');
    expect(estimateWords(100_000, false)).toBe('about 1 min 30 s');
  });

  it('a run of older builds, or one not completed, gives no start', () => {
    const old = { ...smokeRun, summary: { steps: 6, meanStepMs: 3_000, meanEvalMs: 2_000 } };
    expect(stepSamplesFor([old], 'wasm', [])[0].startMs).toBeUndefined();
    expect(stepSamplesFor([{ ...smokeRun, status: 'stopped' }], 'wasm', [])[0].startMs).toBeUndefined();
  });
});

// The page said "about 1 h 12 min" for a lesson beside other figures for the same runs: every place now words
// the one estimate, so the same runs and calibration give the same figure in each.
describe('one figure in every place that says a time', () => {
  for (const [name, runs] of [['calibration only', []], ['a stored smoke run', [smokeRun]]] as const) {
    it(`the Lab, the queue, the lesson page, a teacher's sizes and the class sitting agree (${name})`, () => {
      const samples = stepSamplesFor(runs, 'wasm', [calibration]);
      const configs = lesson.arms.map((arm) => armConfig(arm, 1, SMOKE_SIZE));
      // the Lab (TrainingPanel): each arm's run, Start about to run it
      const lab = formatEta(configs.map((c) => estimateRunTime(c, samples)!.ms).reduce((a, b) => a + b, 0));
      // the queue (QueuePanel): both arms queued
      const queue = formatEta(queueEta(enqueue(emptyQueue(), configs.map((config, i) => ({ label: `${i}`, config }))), samples).totalMs);
      // the lesson page, both arms one after the other; a teacher's sizes; a class sitting of one seed an arm, one at a time
      const page = formatEta(lessonTimeMs(lesson, SMOKE_SIZE, samples, { arms: 2, atOnce: 1 }));
      const teacher = formatEta(lessonTimeMs(lesson, SMOKE_SIZE, samples));
      const sitting = formatEta(lessonTimeMs(lesson, SMOKE_SIZE, samples, { seedsAnArm: 1, atOnce: 1 }));
      expect(lab).not.toBe('…');
      expect(new Set([lab, queue, page, teacher, sitting])).toEqual(new Set([lab]));
      // the first arm alone: the lesson page and the Lab
      expect(formatEta(lessonTimeMs(lesson, SMOKE_SIZE, samples, { arms: 1 }))).toBe(formatEta(estimateRunTime(configs[0], samples)!.ms));
    });
  }

  it('writes a step time one way: the tile, the charts\' metric and the run estimate', () => {
    // the tile read "14.8 s" mid-run and "9520 ms" at the end
    expect(formatStepTime(9_520)).toBe('9.5 s');
    expect(formatMetric(metricInfo('time/step_ms'), 9_520)).toBe('9.5 s');
    expect(formatMetric(metricInfo('time/step_ms'), 14_800)).toBe(formatStepTime(14_800));
    expect(formatStepTime(480)).toBe('480 ms');
    expect(formatStepTime(999.7)).toBe('1.0 s');
    expect(formatStepTime(null)).toBe('–');
  });
});

describe('formatEstimate', () => {
  it('rounds an estimate to what it can know, and keeps none as none', () => {
    expect([4_400, 27_000, 62_000, 100_000, 953_000, 3_900_000].map(formatEstimate)).toEqual([
      '5 s', '25 s', '1 min', '1 min 30 s', '16 min', '1 h 05 min',
    ]);
    expect(formatEstimate(null)).toBe('…');
  });
});
