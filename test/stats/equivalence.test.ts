// Schuirmann's two one-sided tests (TOST) with Welch's t, against R: test/fixtures/tost-r.json holds R's
// equivalence::tost and t.test figures on a published data set, as statsmodels' own test suite pins them —
// an implementation independent of stdlib's t distribution and of this repository; SciPy's one-sided Welch
// tests give the same p to 12 digits (`python3 scripts/interaction_crosscheck.py tost`), so no python runs here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { equivalenceFromEstimate, oneSampleEquivalence, welchEquivalence } from '../../src/stats/equivalence.ts';
import { holmLevels, intervalAt, holmAdjust, testPairs, welchTest } from '../../src/stats/seedStatistics.ts';

interface Tost { name: string; data: 'var1' | 'var2'; log: boolean; epsilon: number; mean_diff: number; se_diff: number; df: number; ci90: [number, number]; p_value: number; result: string }
const fixture = JSON.parse(readFileSync(new URL('../fixtures/tost-r.json', import.meta.url), 'utf8')) as {
  clinic: Record<'var1' | 'var2', [number[], number[]]>;
  tost: Tost[];
  oneSided: { name: string; data: 'var1' | 'var2'; mu: number; statistic: number; parameter: number; p_value: number }[];
};
const close = (a: number, b: number, tol = 1e-9) => expect(Math.abs(a - b)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(b)));

describe('welchEquivalence (TOST)', () => {
  it.each(fixture.tost.map((c) => [c.name, c] as const))("matches R's equivalence::tost: %s", (_, c) => {
    const [x, y] = fixture.clinic[c.data].map((xs) => (c.log ? xs.map(Math.log) : xs));
    const e = welchEquivalence(x, y, c.epsilon);
    close(e.difference, c.mean_diff);
    close(e.se, c.se_diff);
    close(e.df, c.df);
    close(e.p, c.p_value);
    expect(e.p < 0.05 ? 'rejected' : 'not rejected').toBe(c.result);
    // the 1 − 2α interval lies inside ± ε exactly when TOST rejects at α
    const ci = intervalAt(e.difference, e.se, e.df, 0.1);
    close(ci.lo, c.ci90[0]);
    close(ci.hi, c.ci90[1]);
    expect(ci.lo > -c.epsilon && ci.hi < c.epsilon).toBe(e.p < 0.05);
  });

  it("each one-sided test is R's t.test(mu = ±δ, alternative = 'less' / 'greater')", () => {
    const c = fixture.oneSided[0];
    const [x, y] = fixture.clinic[c.data];
    const e = welchEquivalence(x, y, c.mu);
    close(e.upper.t, c.statistic);
    close(e.df, c.parameter);
    close(e.upper.p, c.p_value);
    // the lower side mirrors it: d + δ over the same se
    close(e.lower.t, (e.difference + c.mu) / e.se, 1e-12);
  });

  it('is the two one-sided halves of Welch tests shifted by ± δ', () => {
    const [x, y] = fixture.clinic.var1;
    const e = welchEquivalence(x, y, 0.6);
    const up = welchTest(x.map((v) => v - 0.6), y);
    close(e.upper.p, up.p / 2, 1e-12); // the shifted difference is negative: its lower tail is half the two-sided p
    expect(e.p).toBe(Math.max(e.lower.p, e.upper.p));
  });

  it('one-sample: a cell against the start is the same test with the start as a fixed 0', () => {
    const a = [1.2, -0.4, 0.3, 0.8, -1.1, 0.2];
    const e = oneSampleEquivalence(a, 2);
    const m = a.reduce((s, v) => s + v, 0) / a.length;
    close(e.difference, m, 1e-12);
    expect(e.df).toBe(5);
    expect(e.p).toBeLessThan(0.05);
    expect(oneSampleEquivalence(a, 0.2).p).toBeGreaterThan(0.05);
  });

  it('refuses a margin that is not positive', () => {
    expect(() => equivalenceFromEstimate(0, 1, 10, 0)).toThrow(/delta must be a positive/);
    expect(() => welchEquivalence([1], [2, 3], 1)).toThrow(/at least two/);
  });
});

describe('holmLevels', () => {
  it("decides each test at Holm's step (α/m, α/(m − 1), …) until it stops, then at the stopping step's level", () => {
    expect(holmLevels([0.001, 0.02, 0.04], 0.05)).toEqual([0.05 / 3, 0.05 / 2, 0.05]);
    // stops at the second (0.03 ≥ 0.025): the third is decided at that level, though 0.04 < 0.05
    expect(holmLevels([0.001, 0.03, 0.04], 0.05)).toEqual([0.05 / 3, 0.025, 0.025]);
    expect(holmLevels([0.2], 0.05)).toEqual([0.05]);
  });

  it('an interval at its level excludes 0 exactly when the Holm-adjusted p is below α', () => {
    const ps = [0.001, 0.03, 0.04, 0.012, 0.5];
    const adj = holmAdjust(ps);
    holmLevels(ps).forEach((level, i) => expect(ps[i] < level).toBe(adj[i] < 0.05));
  });
});

describe('testPairs', () => {
  const a = [10, 12, 9, 14, 11, 13];
  const b = [2, 1, 3, 0, 2, 4];
  const c = [2.5, 1.5, 2.0, 3.0, 1.0, 2.0];
  it("gives each pair its call's level and the interval there, and the equivalence test at δ Holm-adjusted across the pairs", () => {
    const [ab, bc] = testPairs([{ higher: a, lower: b }, { higher: b, lower: c }], { complete: true, delta: 3 });
    expect(ab!.call).toBe('supports');
    expect(ab!.alpha).toBe(0.025);
    expect(ab!.interval.level).toBe(0.975);
    expect(ab!.interval.holm).toBe(true);
    expect(ab!.interval.lo).toBeLessThan(ab!.lo); // wider than the 95 % interval
    expect(bc!.call).toBe('not resolved');
    expect(bc!.alpha).toBe(0.05); // Holm's second step: α/1
    const e = welchEquivalence(b, c, 3);
    close(bc!.equivalence!.p, e.p, 1e-12);
    expect(bc!.equivalence!.pAdjusted).toBe(holmAdjust([ab!.equivalence!.p, e.p])[1]);
    expect(bc!.equivalence!.shown).toBe(bc!.equivalence!.pAdjusted < 0.05);
    expect(ab!.equivalence!.shown).toBe(false);
  });

  it('shows no equivalence while the seeds are unfinished, and none without a δ', () => {
    const [x] = testPairs([{ higher: b, lower: c }], { complete: false, delta: 3 });
    expect(x!.equivalence!.shown).toBe(false);
    const [y] = testPairs([{ higher: b, lower: c }], { complete: true });
    expect(y!.equivalence).toBeNull();
    expect(y!.interval.holm).toBe(false);
    expect(y!.interval.level).toBe(0.95);
  });
});
