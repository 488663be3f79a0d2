// 95 % intervals for the lab's figures: a Wilson score interval for a
// success rate over held-out queries, and intervals for a mean of per-seed (or per-query) values — a
// Student t interval and a seeded percentile bootstrap. Pure: no tfjs, no DOM, no fs; the same inputs
// give the same interval (the bootstrap draws from the lab's seeded Rng).
//
// Sampled success (k samples per query at the training temperature) is a mean of per-query means, and
// the k samples of one query are correlated (same query, same policy). The lab's interval for it is
// `wilsonOfMeans`: Wilson's interval with n = the number of queries, as if each query were one trial
// with success probability its mean. That is conservative: a per-query mean lies in [0, 1], so its
// variance is at most p(1 − p), the variance of one Bernoulli trial; the k samples sharpen the point
// estimate, the interval does not count them as independent. `bootstrapInterval` over the per-query
// means is the cluster bootstrap (queries resampled, their k samples kept together), narrower and not
// conservative.
import stdNormalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { Rng } from '../env/random.ts';

export interface Interval {
  /** the point estimate (the proportion or the mean) */
  estimate: number;
  lo: number;
  hi: number;
  /** trials, values or clusters behind it */
  n: number;
}

/** the standard normal quantile (0.975 → 1.959964): stdlib's, as every distribution of the lab (seedStatistics.ts says
 * why) */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`normalQuantile: p must be in (0, 1), got ${p}`);
  return stdNormalQuantile(p, 0, 1);
}

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new Error(`interval level must be in (0, 1), got ${level}`);
}

/**
 * Wilson's score interval for a proportion `successes / n` (Wilson 1927): well behaved at 0 and n,
 * unlike the normal ±z·√(p(1−p)/n). `successes` may be fractional (wilsonOfMeans). n = 0 gives NaNs.
 */
export function wilson(successes: number, n: number, level = 0.95): Interval {
  checkLevel(level);
  if (!(n >= 0) || !Number.isFinite(n)) throw new Error(`wilson: n must be a non-negative number, got ${n}`);
  if (!(successes >= 0 && successes <= n))
    throw new Error(`wilson: successes must be in [0, n = ${n}], got ${successes}`);
  if (n === 0) return { estimate: NaN, lo: NaN, hi: NaN, n: 0 };
  const z = normalQuantile(1 - (1 - level) / 2);
  const p = successes / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
  // the exact ends at 0 and n (rounding would leave 1e-17 off them)
  return {
    estimate: p,
    lo: successes === 0 ? 0 : Math.max(0, centre - half),
    hi: successes === n ? 1 : Math.min(1, centre + half),
    n,
  };
}

/**
 * The interval of a difference of two proportions p₁ − p₂ from independent samples: Newcombe's hybrid score
 * interval (Newcombe 1998, method 10), built from each proportion's Wilson interval. Unlike the normal
 * ±z·√(…) it stays within [−1, 1] and keeps its coverage near 0 and 1. Two evaluations of the same queries are
 * positively correlated, so on them it is conservative (wider than a paired interval).
 */
export function newcombeDifference(s1: number, n1: number, s2: number, n2: number, level = 0.95): Interval {
  const a = wilson(s1, n1, level);
  const b = wilson(s2, n2, level);
  const d = a.estimate - b.estimate;
  return {
    estimate: d,
    lo: d - Math.sqrt((a.estimate - a.lo) ** 2 + (b.hi - b.estimate) ** 2),
    hi: d + Math.sqrt((a.hi - a.estimate) ** 2 + (b.estimate - b.lo) ** 2),
    n: Math.min(n1, n2),
  };
}

/**
 * The success interval of per-cluster mean rates in [0, 1] (e.g. each query's success over its k samples):
 * Wilson's interval at n = the number of clusters and p = the mean of the means. Conservative for
 * correlated samples within a cluster (see the header); with one sample per cluster it is `wilson`.
 */
export function wilsonOfMeans(means: readonly number[], level = 0.95): Interval {
  for (const m of means)
    if (!(m >= 0 && m <= 1)) throw new Error(`wilsonOfMeans: every mean must be in [0, 1], got ${m}`);
  const total = means.reduce((a, b) => a + b, 0);
  return wilson(Math.min(means.length, total), means.length, level);
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** the Student t quantile (0.975, 4) → 2.776 (stdlib) */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`studentTQuantile: p must be in (0, 1), got ${p}`);
  if (!(df > 0)) throw new Error(`studentTQuantile: df must be positive, got ${df}`);
  return tQuantile(p, df);
}

/**
 * Student's t interval for the mean of `values` (e.g. a gain per seed): mean ± t(n−1) · s/√n. Assumes the
 * values are independent and roughly normal; with one value the interval is unknown (NaN ends), with none
 * everything is NaN.
 */
export function tInterval(values: readonly number[], level = 0.95): Interval {
  checkLevel(level);
  const n = values.length;
  if (n === 0) return { estimate: NaN, lo: NaN, hi: NaN, n: 0 };
  const m = mean(values);
  if (n === 1) return { estimate: m, lo: NaN, hi: NaN, n };
  const s = Math.sqrt(values.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1));
  const half = studentTQuantile(1 - (1 - level) / 2, n - 1) * (s / Math.sqrt(n));
  return { estimate: m, lo: m - half, hi: m + half, n };
}

export interface BootstrapOptions {
  level?: number;
  /** resamples drawn (default 2000) */
  resamples?: number;
  /** seeds the resampling (default 1): the same values and seed give the same interval */
  seed?: number;
}

/**
 * Percentile bootstrap interval for the mean of `values` (Efron): resample the values with replacement,
 * take the mean each time, and read the (1 ± level)/2 quantiles. Over per-query means it is the cluster
 * bootstrap of a sampled success rate. Makes no normality assumption but is too narrow for a handful of
 * values (three seeds: prefer tInterval). No values gives NaNs.
 */
export function bootstrapInterval(values: readonly number[], opts: BootstrapOptions = {}): Interval {
  const level = opts.level ?? 0.95;
  checkLevel(level);
  const resamples = opts.resamples ?? 2000;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new Error(`bootstrapInterval: resamples must be a positive integer, got ${resamples}`);
  const n = values.length;
  if (n === 0) return { estimate: NaN, lo: NaN, hi: NaN, n: 0 };
  const rng = new Rng(opts.seed ?? 1);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[rng.int(n)];
    means[r] = s / n;
  }
  means.sort();
  const at = (q: number) => {
    // linear interpolation between order statistics (type 7, as numpy's default)
    const h = (resamples - 1) * q;
    const i = Math.floor(h);
    return i + 1 < resamples ? means[i] + (h - i) * (means[i + 1] - means[i]) : means[i];
  };
  return { estimate: mean(values), lo: at((1 - level) / 2), hi: at(1 - (1 - level) / 2), n };
}
