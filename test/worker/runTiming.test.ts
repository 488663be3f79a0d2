import { describe, expect, it } from 'vitest';
import { RunTiming } from '../../src/worker/runTiming.ts';

describe('RunTiming', () => {
  it('counts the evaluations left: every evalEvery steps and after the last', () => {
    const t = new RunTiming({ totalSteps: 25, evalEvery: 10, history: [] });
    expect([0, 9, 10, 19, 20, 24, 25].map((s) => t.evaluationsLeft(s))).toEqual([3, 3, 2, 2, 1, 1, 0]);
    expect(new RunTiming({ totalSteps: 40, evalEvery: 20 }).evaluationsLeft(39)).toBe(1);
    expect(new RunTiming({ totalSteps: 40, evalEvery: null }).evaluationsLeft(0)).toBe(0);
  });

  it('has no ETA before three steps (one if slow), and before any evaluation is timed counts the steps alone', () => {
    const t = new RunTiming({ totalSteps: 10, evalEvery: 5 });
    t.recordStep(1, 1_000, undefined);
    expect(t.etaMs(1)).toBeNull();
    t.recordStep(2, 1_000, undefined);
    t.recordStep(3, 1_000, undefined);
    expect(t.etaMs(3)).toBe(7_000);
    t.recordStep(4, 1_000, undefined);
    t.recordStep(5, 3_000, 2); // 1 s of training, 2 s evaluating
    expect(t.etaMs(5)).toBe(5 * 1_000 + 1 * 2_000);
    const slow = new RunTiming({ totalSteps: 3, evalEvery: null });
    slow.recordStep(1, 60_000, undefined);
    expect(slow.etaMs(1)).toBe(120_000);
  });
});
