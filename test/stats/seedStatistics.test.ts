// The statistics behind the findings' calls, against reference values from SciPy 1.17.1
// (scipy.stats.ttest_ind(equal_var=False), ttest_1samp, .confidence_interval(), and the power of the
// two-sided two-sample t-test from scipy.stats.nct: nct.sf(c, df, ncp) + nct.cdf(−c, df, ncp) with
// c = t.ppf(1 − α/2, df), df = 2n − 2, ncp = δ / (σ √(2/n))), pasted below with the call that gave them.
import { describe, expect, it } from 'vitest';
import { detectableDifference, findingCall, holmAdjust, oneSampleTest, pooledSd, probabilityOfImprovement, seedsForPower, testPairs, twoSampleTPower, welchTest } from '../../src/stats/seedStatistics.ts';
import { tInterval } from '../../src/stats/intervals.ts';

// T7's committed per-seed gains (results/findings/T7/table.json, seeds 1–3): 0 %, 5 % and 10 % tool failures
const T7_0 = [23, 37, 33];
const T7_5 = [18.3, 33, 22];
const T7_10 = [13.3, 4.7, 3.3];

describe('welchTest', () => {
  it("matches scipy.stats.ttest_ind(a, b, equal_var=False) and its confidence_interval()", () => {
    // ttest_ind([23,37,33], [13.3,4.7,3.3], equal_var=False): statistic 4.590498431379729, pvalue 0.012036043677146287,
    // df 3.7113181091452447, CI (8.990276705258978, 38.80972329474102)
    const t = welchTest(T7_0, T7_10);
    expect(t.difference).toBeCloseTo(23.9, 10);
    expect(t.t).toBeCloseTo(4.590498431379729, 9);
    expect(t.df).toBeCloseTo(3.7113181091452447, 9);
    expect(t.p).toBeCloseTo(0.012036043677146287, 9);
    expect(t.lo).toBeCloseTo(8.990276705258978, 7);
    expect(t.hi).toBeCloseTo(38.80972329474102, 7);
    // ttest_ind([18.3,33,22], [13.3,4.7,3.3], equal_var=False): 3.204325915954831, p 0.038002327721882244, df 3.602894537472657,
    // CI (1.638646708906096, 33.02801995776057)
    const u = welchTest(T7_5, T7_10);
    expect(u.p).toBeCloseTo(0.038002327721882244, 9);
    expect(u.df).toBeCloseTo(3.602894537472657, 9);
    expect(u.lo).toBeCloseTo(1.638646708906096, 7);
    expect(u.hi).toBeCloseTo(33.02801995776057, 7);
  });

  it('resolves a pair whose 95 % intervals overlap (the old call rule left T7 unresolved)', () => {
    const a = tInterval(T7_0);
    const b = tInterval(T7_10);
    expect(a.lo).toBeLessThan(b.hi); // the cells' intervals overlap: [13.1, 48.9] and [−6.4, 20.6]
    const [p] = testPairs([{ higher: T7_0, lower: T7_10 }], { complete: true });
    expect(p!.call).toBe('supports');
    expect(p!.p).toBeLessThan(0.05);
  });

  it('knows an exact difference when both samples are constant, and refuses too few or non-finite values', () => {
    expect(welchTest([1, 1], [0, 0])).toMatchObject({ difference: 1, lo: 1, hi: 1, p: 0 });
    expect(welchTest([1, 1], [1, 1]).p).toBe(1);
    expect(() => welchTest([1], [2, 3])).toThrow(/at least two/);
    expect(() => welchTest([1, NaN], [2, 3])).toThrow(/finite/);
  });
});

describe('oneSampleTest (a cell against the SFT start, a gain of exactly 0)', () => {
  it('matches scipy.stats.ttest_1samp', () => {
    // ttest_1samp([-2,-4.5,-1,-3,-6,0.5], 0): statistic -2.7685141608239308, pvalue 0.03943466962589508, df 5,
    // CI (-5.142682499285744, -0.19065083404758898)
    const t = oneSampleTest([-2, -4.5, -1, -3, -6, 0.5]);
    expect(t.t).toBeCloseTo(-2.7685141608239308, 9);
    expect(t.p).toBeCloseTo(0.03943466962589508, 9);
    expect(t.df).toBe(5);
    expect(t.lo).toBeCloseTo(-5.142682499285744, 8);
    expect(t.hi).toBeCloseTo(-0.19065083404758898, 8);
  });

  it('tests "the start gains more than the cell" as the mirror of the cell against 0', () => {
    const loss = [-2, -4.5, -1, -3, -6, 0.5];
    const [p] = testPairs([{ higher: 'start', lower: loss }], { complete: true });
    expect(p!.test).toBe('one-sample');
    expect(p!.difference).toBeCloseTo(2.6666666, 5);
    expect(p!.lo).toBeCloseTo(0.19065083404758898, 8);
    expect(p!.call).toBe('supports');
    expect(p!.improvement).toBeNull();
  });
});

describe('holmAdjust and the calls', () => {
  it("matches R's p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), 'holm') = 0.05 0.08 0.09 0.09 0.09, in input order", () => {
    const adj = holmAdjust([0.03, 0.01, 0.05, 0.02, 0.04]);
    [0.09, 0.05, 0.09, 0.08, 0.09].forEach((x, i) => expect(adj[i]).toBeCloseTo(x, 12));
  });

  it("keeps both of T7's pairs under Holm (0.012 → 0.024, 0.038 → 0.038)", () => {
    const tests = testPairs([{ higher: T7_0, lower: T7_10 }, { higher: T7_5, lower: T7_10 }], { complete: true });
    expect(tests[0]!.pAdjusted).toBeCloseTo(2 * 0.012036043677146287, 9);
    expect(tests[1]!.pAdjusted).toBeCloseTo(0.038002327721882244, 9);
    expect(tests.map((t) => t!.call)).toEqual(['supports', 'supports']);
  });

  it('fails the second pair where its unadjusted p passes but Holm does not', () => {
    // the first pair's p ≈ 0.012 (×2 = 0.024 passes); the second ≈ 0.038 alone, but beside a third pair with p near 1 it is ×2 = 0.076
    const weak = [4, -3, 6];
    const tests = testPairs([{ higher: T7_0, lower: T7_10 }, { higher: T7_5, lower: T7_10 }, { higher: weak, lower: [3, -2, 5] }], { complete: true });
    expect(tests[1]!.p).toBeLessThan(0.05);
    expect(tests[1]!.pAdjusted).toBeGreaterThan(0.05);
    expect(tests.map((t) => t!.call)).toEqual(['supports', 'not resolved', 'not resolved']);
    expect(findingCall(tests.map((t) => t!.call))).toBe('agrees in part');
  });

  it('contradicts with the other sign, makes no call while interim, and needs two seeds a side', () => {
    const [c] = testPairs([{ higher: T7_10, lower: T7_0 }], { complete: true });
    expect(c!.call).toBe('contradicts');
    const [i] = testPairs([{ higher: T7_0, lower: T7_10 }], { complete: false });
    expect(i!.call).toBe('interim');
    expect(i!.p).toBeCloseTo(0.012036, 5); // the figures are there; the call is not
    expect(testPairs([{ higher: [1], lower: T7_10 }], { complete: true })[0]).toBeNull();
    expect(findingCall(['supports', 'supports'])).toBe('agrees');
    expect(findingCall(['contradicts', 'not resolved'])).toBe('disagrees');
    expect(findingCall(['supports', 'contradicts'])).toBe('mixed');
    expect(findingCall(['supports', 'interim'])).toBe('interim');
    expect(findingCall(['not resolved'])).toBe('not resolved');
  });
});

describe('probabilityOfImprovement (rliable)', () => {
  it('counts P(X > Y) + ½ P(X = Y) over every pair of seeds, with a seeded stratified bootstrap interval', () => {
    expect(probabilityOfImprovement(T7_0, T7_10).estimate).toBe(1);
    // 2 > 1 (1), 2 = 2 (½), 2 < 3 (0); 4 beats all three (3): (1.5 + 3) / 6
    const p = probabilityOfImprovement([2, 4], [1, 2, 3], { resamples: 500 });
    expect(p.estimate).toBeCloseTo(0.75, 12);
    expect(p.lo).toBeLessThanOrEqual(p.estimate);
    expect(p.hi).toBeGreaterThanOrEqual(p.estimate);
    expect(probabilityOfImprovement([2, 4], [1, 2, 3], { resamples: 500 })).toEqual(p);
  });
});

describe('power analysis', () => {
  it('matches the noncentral t power from scipy.stats.nct', () => {
    // (n, δ, σ, α) → power: (11, 10, 7.8, .05) 0.8158610750223578; (6, 15, 7.8, .05) 0.8505019425835894;
    // (19, 10, 7.8, .05/9) 0.8328895121270934; (3, 5, 7.8, .05) 0.09431218166915552
    expect(twoSampleTPower({ n: 11, delta: 10, sd: 7.8, alpha: 0.05 })).toBeCloseTo(0.8158610750223578, 5);
    expect(twoSampleTPower({ n: 6, delta: 15, sd: 7.8, alpha: 0.05 })).toBeCloseTo(0.8505019425835894, 5);
    expect(twoSampleTPower({ n: 19, delta: 10, sd: 7.8, alpha: 0.05 / 9 })).toBeCloseTo(0.8328895121270934, 5);
    expect(twoSampleTPower({ n: 3, delta: 5, sd: 7.8, alpha: 0.05 })).toBeCloseTo(0.09431218166915552, 5);
  });

  it("gives the power plan's seeds: 11 a cell for 10 points at σ 7.8, 6 for 15; under Holm at T1's nine pairs 18 and 10", () => {
    // scipy: power(17, 10, 7.8, .05/9) = 0.76996, power(18, …) = 0.80343 — 18 seeds, not the rough estimate's 19
    expect(seedsForPower({ delta: 10, sd: 7.8, alpha: 0.05 })).toBe(11);
    expect(seedsForPower({ delta: 15, sd: 7.8, alpha: 0.05 })).toBe(6);
    expect(seedsForPower({ delta: 10, sd: 7.8, alpha: 0.05 / 9 })).toBe(18);
    expect(seedsForPower({ delta: 15, sd: 7.8, alpha: 0.05 / 9 })).toBe(10);
    const d = detectableDifference({ n: 11, sd: 7.8, alpha: 0.05 });
    expect(d).toBeLessThan(10);
    expect(twoSampleTPower({ n: 11, delta: d, sd: 7.8, alpha: 0.05 })).toBeCloseTo(0.8, 6);
  });

  it('pools per-seed spreads by their degrees of freedom', () => {
    // variances 1 (df 2) and 4 (df 1): √((2·1 + 1·4) / 3) = √2
    const p = pooledSd([[1, 2, 3], [0, 2.8284271247461903], [5]]);
    expect(p.df).toBe(3);
    expect(p.sd).toBeCloseTo(Math.SQRT2, 12);
  });
});
