import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/env/random.ts';
import { bootstrapInterval, normalQuantile, studentTQuantile, tInterval, wilson, wilsonOfMeans, newcombeDifference } from '../../src/stats/intervals.ts';

describe('wilson', () => {
  // reference values: R's prop.test(x, n, correct = FALSE)$conf.int and statsmodels proportion_confint(method='wilson')
  it.each([
    [0, 10, 0, 0.2775328],
    [5, 10, 0.2365931, 0.7634069],
    [10, 10, 0.7224672, 1],
    [23, 100, 0.1584327, 0.3215438],
    [150, 300, 0.4437795, 0.5562205],
  ])('%i / %i → [%f, %f]', (s, n, lo, hi) => {
    const w = wilson(s, n);
    expect(w.estimate).toBeCloseTo(s / n, 12);
    expect(w.lo).toBeCloseTo(lo, 4);
    expect(w.hi).toBeCloseTo(hi, 4);
    expect(w.n).toBe(n);
  });

  it('is about ±5 points at 300 queries, reads n = 0 as unknown, and refuses nonsense', () => {
    const w = wilson(69, 300); // 23 %
    expect(w.hi - w.lo).toBeLessThan(0.1);
    expect(wilson(0, 0)).toMatchObject({ estimate: NaN, lo: NaN, hi: NaN, n: 0 });
    expect(wilson(3, 10, 0.5).hi - wilson(3, 10, 0.5).lo).toBeLessThan(wilson(3, 10).hi - wilson(3, 10).lo);
    expect(() => wilson(11, 10)).toThrow(/successes/);
    expect(() => wilson(1, 10, 1)).toThrow(/level/);
  });

  it('wilsonOfMeans: each cluster one trial; with 0/1 means it is wilson', () => {
    expect(wilsonOfMeans([1, 0, 0, 1, 1])).toEqual(wilson(3, 5));
    const m = wilsonOfMeans([0.25, 0.5, 1, 0]);
    expect(m.estimate).toBeCloseTo(0.4375, 12);
    expect(m).toMatchObject(wilson(1.75, 4));
    expect(() => wilsonOfMeans([1.5])).toThrow(/\[0, 1\]/);
  });
});

describe('newcombeDifference', () => {
  it("gives Newcombe's (1998) published method-10 intervals", () => {
    // his Table II, examples (a) and (b)
    const a = newcombeDifference(56, 70, 48, 80);
    expect([a.estimate, a.lo, a.hi].map((x) => x.toFixed(4))).toEqual(['0.2000', '0.0524', '0.3339']);
    const b = newcombeDifference(9, 10, 3, 10);
    expect([b.lo, b.hi].map((x) => x.toFixed(4))).toEqual(['0.1705', '0.8090']);
    expect(newcombeDifference(10, 10, 0, 10).hi).toBe(1); // within [−1, 1] at the edge
  });
});

describe('quantiles', () => {
  it('normal and Student t against tables', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 6);
    for (const [df, t] of [[1, 12.7062], [2, 4.3027], [4, 2.7764], [9, 2.2622], [29, 2.0452]] as const) {
      expect(studentTQuantile(0.975, df)).toBeCloseTo(t, 4);
    }
    expect(studentTQuantile(0.025, 4)).toBeCloseTo(-2.7764, 4);
  });
});

/** a draw from N(μ, σ) (Box–Muller) */
function normal(rng: Rng, mu: number, sigma: number): number {
  return mu + sigma * Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

describe('intervals for a mean', () => {
  it('tInterval: mean ± t·s/√n, and NaN ends with a single value', () => {
    const t = tInterval([1, 2, 3, 4]);
    expect(t.estimate).toBe(2.5);
    expect(t.hi - t.estimate).toBeCloseTo(3.182446 * Math.sqrt(5 / 3) / 2, 5);
    expect(tInterval([0.1])).toMatchObject({ estimate: 0.1, lo: NaN, hi: NaN, n: 1 });
    expect(tInterval([]).n).toBe(0);
  });

  it('bootstrapInterval is seeded and brackets the mean', () => {
    const xs = [0.1, 0.3, 0.2, 0.5, 0.4, 0.25];
    const a = bootstrapInterval(xs, { seed: 3 });
    expect(bootstrapInterval(xs, { seed: 3 })).toEqual(a);
    expect(a.lo).toBeLessThan(a.estimate);
    expect(a.hi).toBeGreaterThan(a.estimate);
    const flat = bootstrapInterval([0.2, 0.2, 0.2]);
    expect(flat.lo).toBeCloseTo(0.2, 12);
    expect(flat.hi).toBeCloseTo(0.2, 12);
    expect(bootstrapInterval([]).n).toBe(0);
    expect(() => bootstrapInterval(xs, { resamples: 0 })).toThrow(/resamples/);
  });

  it('cover the true mean about 95 % of the time (coverage sanity, 400 samples)', () => {
    const rng = new Rng(11);
    const trials = 400;
    let tCover = 0;
    let bCover = 0;
    let wCover = 0;
    for (let i = 0; i < trials; i++) {
      const xs = Array.from({ length: 30 }, () => normal(rng, 0.3, 0.1));
      const t = tInterval(xs);
      if (t.lo <= 0.3 && 0.3 <= t.hi) tCover++;
      const b = bootstrapInterval(xs, { resamples: 400, seed: i });
      if (b.lo <= 0.3 && 0.3 <= b.hi) bCover++;
      // 300 queries of success probability 0.23
      const wins = Array.from({ length: 300 }, () => (rng.next() < 0.23 ? 1 : 0)).reduce((a: number, b) => a + b, 0);
      const w = wilson(wins, 300);
      if (w.lo <= 0.23 && 0.23 <= w.hi) wCover++;
    }
    // binomial spread of 400 trials at 95 %: ±2.2 points per standard deviation
    expect(tCover / trials).toBeGreaterThan(0.9);
    expect(tCover / trials).toBeLessThan(0.99);
    expect(bCover / trials).toBeGreaterThan(0.88); // the percentile bootstrap runs a little narrow at n = 30
    expect(bCover / trials).toBeLessThan(0.99);
    expect(wCover / trials).toBeGreaterThan(0.9);
    expect(wCover / trials).toBeLessThan(0.99);
  });

  it('wilsonOfMeans covers a sampled success rate with correlated samples at least as well as 95 %', () => {
    // each query has its own success probability; k = 4 samples of it are drawn
    const rng = new Rng(12);
    const trials = 300;
    let cover = 0;
    for (let i = 0; i < trials; i++) {
      const means = Array.from({ length: 100 }, () => {
        const p = rng.next() < 0.5 ? 0.05 : 0.6; // population mean 0.325
        let s = 0;
        for (let k = 0; k < 4; k++) s += rng.next() < p ? 1 : 0;
        return s / 4;
      });
      const w = wilsonOfMeans(means);
      if (w.lo <= 0.325 && 0.325 <= w.hi) cover++;
    }
    expect(cover / trials).toBeGreaterThan(0.93);
  });
});
