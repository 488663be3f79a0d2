// T8's and T9's analysis on synthetic runs: the figures are SciPy's (scipy.stats.ttest_ind(equal_var=False), a
// Welch–Satterthwaite contrast, Holm by hand, binom.cdf, binomtest(...).proportion_ci('wilson')) for the same
// numbers, so a wrong figure fails here. Pure functions, milliseconds.
import { describe, expect, it } from 'vitest';
import { beyondDifferenceSentence, switchSentence } from '../../src/findings/beyondText.ts';
import {
  firstStageSteps,
  medianWithInterval,
  testBeyond,
  type BeyondDesign,
  type BeyondPlan,
  type BeyondRun,
} from '../../src/findings/beyondTest.ts';

describe('the median step with its order-statistic interval', () => {
  it('20 seeds: the 6th and 15th order statistics, coverage 1 − 2·P(Bin(20, ½) ≤ 5)', () => {
    const m = medianWithInterval(Array.from({ length: 20 }, (_, i) => 20 - i));
    expect([m.median, m.lo, m.hi, m.censored]).toEqual([10.5, 6, 15, 0]);
    expect(m.coverage).toBeCloseTo(0.9586105346679688, 12);
  });
  it('censored runs are counted past every observed step, never averaged in', () => {
    const some = medianWithInterval([...Array.from({ length: 17 }, (_, i) => i + 1), null, null, null]);
    expect([some.median, some.lo, some.hi, some.censored]).toEqual([10.5, 6, 15, 3]);
    const most = medianWithInterval([3, 4, 5, 6, 7, 8, 9, 10, ...Array<null>(12).fill(null)]);
    expect([most.median, most.lo, most.hi]).toEqual([null, 8, null]);
    expect(switchSentence({ scale: 's', name: '1.5B', stage: 2, steps: 40, interval: most })).toBe(
      '1.5B, first Success step: median past step 40 (95.86 % interval [8, past step 40]; 20 runs, 12 never reached Success within 40 steps)',
    );
  });
  it('no 95 % interval under six seeds; at six the extremes, 1 − 2/64', () => {
    expect(medianWithInterval([1, 2, 3, 4, 5]).coverage).toBeNull();
    const six = medianWithInterval([6, 1, 5, 2, 4, 3]);
    expect([six.median, six.lo, six.hi, six.coverage]).toEqual([3.5, 1, 6, 1 - 2 / 64]);
  });
  it('a stage is reached at the first step at or past it', () => {
    const s = (xs: number[]) => xs.map((stage, i) => ({ step: i + 1, stage }));
    expect(firstStageSteps(s([0, 0, 1, 1, 2]))).toEqual([3, 5]);
    expect(firstStageSteps(s([0, 2, 2]))).toEqual([2, 2]);
    expect(firstStageSteps(s([0, 0, 1]))).toEqual([3, null]);
  });
});

// three seeds a cell; gains chosen so each test is easy to recompute
const GAINS = { s: [[10, 12, 14], [4, 6, 8]], m: [[5, 9, 7], [6, 8, 10]], l: [[20, 22, 27], [1, 3, 2]] } as const;
const PLAN = {
  format: 'star-lab-beyond-plan/1',
  date: '2026-12-07',
  commit: 'c'.repeat(40),
  command: 'test',
  choices: { delta: 12, alpha: 0.05, power: 0.8 },
  T8: { seedsPerCell: 3, runs: Array(15).fill({}), pairs: { alpha: 0.05 / 3, seeds: 3 }, interactions: [], adaptiveSeeds: [101, 103], fixedReused: [], coreHours: 1 },
  T9: { sizes: [250, 1000, 4000], sft: [{ size: 250, dir: 'sft/250' }, { size: 4000, dir: 'sft/4000' }], pairs: { alpha: 0.025, seeds: 3 }, standardReused: [], rlSeeds: [201, 203], runs: Array(6).fill({}), coreHours: 1 },
  coreHours: 2,
} as unknown as BeyondPlan;
const CELLS: BeyondDesign = {
  t8: (['s', 'm', 'l'] as const).flatMap((scale) =>
    (['adaptive', 'fixed'] as const).map((arm) => {
      const dirs = [0, 1, 2].map((i) => `t8/${scale}/${arm}/${i}`);
      // the fixed arm reuses two committed seeds and runs one fresh
      return { scale, arm, dirs, fresh: arm === 'fixed' ? dirs.slice(2) : dirs };
    }),
  ),
  t9: [250, 1000, 4000].map((size) => {
    const dirs = [0, 1, 2].map((i) => `t9/${size}/${i}`);
    return { size, dirs, fresh: size === 1000 ? [] : dirs };
  }),
  sft: [{ size: 250, dir: 'sft/250' }, { size: 4000, dir: 'sft/4000' }],
};
const T9_GAINS: Record<number, number[]> = { 250: [1, 2, 3], 1000: [10, 14, 12], 4000: [11, 13, 15] };
const START: Record<number, number> = { 250: 21 / 300, 1000: 43 / 300, 4000: 60 / 300 };

function runs(missing = new Set<string>()) {
  const m = new Map<string, BeyondRun>();
  for (const [scale, [adaptive, fixed]] of Object.entries(GAINS))
    for (const [arm, gains] of [['adaptive', adaptive], ['fixed', fixed]] as const)
      gains.forEach((gain, i) =>
        m.set(`t8/${scale}/${arm}/${i}`, {
          seed: i,
          gain,
          start: { success: 0.1, queries: 300 },
          steps: 40,
          // adaptive: Macro from step 2 + i, Success from step 10·(i + 1); fixed: 15 and 28
          stages: Array.from({ length: 40 }, (_, k) => ({
            step: k + 1,
            stage: arm === 'fixed' ? (k + 1 >= 28 ? 2 : k + 1 >= 15 ? 1 : 0) : k + 1 >= 10 * (i + 1) ? 2 : k + 1 >= 2 + i ? 1 : 0,
          })),
        }),
      );
  for (const [size, gains] of Object.entries(T9_GAINS))
    gains.forEach((gain, i) => m.set(`t9/${size}/${i}`, { seed: i, gain, start: { success: START[Number(size)], queries: 300 }, steps: 40 }));
  return (dir: string) => (missing.has(dir) ? undefined : m.get(dir));
}

describe("T8 and T9's tests", () => {
  const all = testBeyond(PLAN, CELLS, runs(), { sftDone: () => true, mechanism: null });

  it('adaptive − fixed by scale: Welch, Holm across the three', () => {
    expect(all.T8.pairs.map((p) => p.difference)).toEqual([6, -1, 21]);
    expect(all.T8.pairs.map((p) => p.p)).toEqual([0.02131, 0.5734, 0.0064]);
    expect(all.T8.pairs.map((p) => p.pAdjusted)).toEqual([0.04262, 0.5734, 0.0192]);
    expect(all.T8.pairs.map((p) => p.call)).toEqual(['positive', 'not detected', 'positive']);
    expect(beyondDifferenceSentence(all.T8.pairs[1], 0.05)).toMatch(/^adaptive − fixed at 3B: not detected \(Holm p ≥ 0\.05\): −1\.0 points/);
  });
  it('the scale × schedule interactions: the four-cell contrast, Holm across the two', () => {
    expect(all.T8.interactions.map((x) => x.difference)).toEqual([-15, -22]);
    expect(all.T8.interactions.map((x) => x.p)).toEqual([0.003006, 0.0005595]);
    expect(all.T8.interactions.map((x) => x.pAdjusted)).toEqual([0.003006, 0.001119]);
    expect(all.T8.interactions.map((x) => x.call)).toEqual(['negative', 'negative']);
  });
  it('where it switches: each stage read from the logged stages; the fixed schedule from its run', () => {
    expect(all.T8.fixedFirst).toEqual([15, 28]);
    const s = all.T8.switches.filter((x) => x.scale === 's');
    expect(s.map((x) => [x.stage, x.interval.median, x.interval.n])).toEqual([[1, 3, 3], [2, 20, 3]]);
    expect(all.T8.finished).toBe(12); // the fresh runs: 3 adaptive and 1 fixed a scale
  });
  it("T9: each start's greedy success with its Wilson interval, and the RL gain pairs against the standard", () => {
    expect(all.T9.starts.find((s) => s.size === 1000)).toEqual({ size: 1000, queries: 300, successes: 43, success: 14.33, lo: 10.82, hi: 18.75, runs: 3 });
    expect(all.T9.pairs.map((p) => [p.label, p.difference])).toEqual([['SFT on 250 − on 1000', -10], ['SFT on 4000 − on 1000', 1]]);
    expect(all.T9.pairs[0].call).toBe('negative');
    expect(all.T9.finished).toBe(8);
  });
  it('interim while one planned run is missing: figures, no call, and the sentence says so', () => {
    const part = testBeyond(PLAN, CELLS, runs(new Set(['t8/l/fixed/2', 't9/4000/2'])), { sftDone: (d) => d === 'sft/250', mechanism: null });
    expect(part.T8.pairs.map((p) => p.call)).toEqual(['interim', 'interim', 'interim']);
    expect(part.T8.finished).toBe(11);
    expect(part.T9.finished).toBe(6);
    expect(beyondDifferenceSentence(part.T9.pairs[1], 0.05)).toMatch(/— interim \(seeds finished 2, 3 of 3 a cell\), no call until every planned run has finished\.$/);
  });
  it('a start whose runs disagree about its success is not one start', () => {
    const read = runs();
    const bad = (dir: string) => (dir === 't9/250/1' ? { ...read(dir)!, start: { success: 0.5, queries: 300 } } : read(dir));
    expect(() => testBeyond(PLAN, CELLS, bad, { sftDone: () => true, mechanism: null })).toThrow(/not one start/);
  });
});
