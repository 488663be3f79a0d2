import { describe, expect, it } from 'vitest';
import { stepSamplesFor } from '../../src/lab/backendChoice.ts';
import { armConfig, LESSONS } from '../../src/lessons/lessons.ts';
import { EVAL_FIXED_QUERIES } from '../../src/lab/runEstimate.ts';
import { armTimeMs, evaluationCount, measuredFor } from '../../src/lessons/lessonTime.ts';

// the bug: the own-machine estimate was step × (steps + 1), the evaluations left out
describe('a lesson arm\'s time on this machine', () => {
  const arm = armConfig(LESSONS[0].arms[0], 1); // 40 steps, evaluated at 0 and 40 on 300 queries + 100 tasks
  const run = (meanStepMs: number, meanEvalMs?: number) => ({
    kind: 'rl', backend: 'wasm · simd · 1 thread', config: { ...arm } as Record<string, unknown>,
    summary: { meanStepMs, ...(meanEvalMs ? { meanEvalMs } : {}) },
  });

  it('counts the starting point\'s, the intermediate and the final evaluation', () => {
    expect(evaluationCount(40, 40)).toBe(2);
    expect(evaluationCount(40, 10)).toBe(5);
    expect(evaluationCount(6, 4)).toBe(3);
  });

  it('is the steps plus the evaluations, each at the time this backend\'s runs measured', () => {
    const samples = stepSamplesFor([run(5_000, 60_000)], 'wasm', []);
    expect(armTimeMs(arm, samples)).toBe(40 * 5_000 + 2 * 60_000);
    // a run of another evaluation size scales by the queries and tasks evaluated, the evaluation's fixed part aside
    const small = { ...run(5_000, 6_000), config: { ...arm, evalQueries: 30, evalToolQa: 10 } };
    const evalMs = (6_000 * (400 + EVAL_FIXED_QUERIES)) / (40 + EVAL_FIXED_QUERIES);
    expect(armTimeMs(arm, stepSamplesFor([small], 'wasm', []))).toBeCloseTo(40 * 5_000 + 2 * evalMs);
  });

  it('without a timed evaluation (runs of older builds) counts each as one step', () => {
    expect(armTimeMs(arm, stepSamplesFor([run(5_000)], 'wasm', []))).toBe(42 * 5_000);
    expect(armTimeMs(arm, [])).toBeNull();
  });

  it('speaks of one arm when one runs', () => {
    expect(measuredFor(1, { wallSeconds: 800, mode: 'sequential' })).toEqual({ seconds: 400, words: 'for one arm' });
    expect(measuredFor(2, { wallSeconds: 800, mode: 'sequential' })).toEqual({ seconds: 800, words: 'for both arms one after the other' });
    expect(measuredFor(1, { wallSeconds: 500, mode: 'parallel' }).words).toBe('for one arm');
  });
});
