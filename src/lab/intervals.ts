// 95 % intervals for the lab's figures (DESIGN §4 "Reading a run"): a Wilson score interval for a
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
import { Rng } from '../env/random.ts';

export interface Interval {
  /** the point estimate (the proportion or the mean) */
  estimate: number;
  lo: number;
  hi: number;
  /** trials, values or clusters behind it */
  n: number;
}

/** the standard normal quantile for a two-sided interval at `level` (0.95 → 1.959964) */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`normalQuantile: p must be in (0, 1), got ${p}`);
  // Acklam's rational approximation (relative error < 1.2e-9)
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const lowTail = 0.02425;
  let x: number;
  if (p < lowTail) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - lowTail) {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  return x;
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
  if (!(successes >= 0 && successes <= n)) throw new Error(`wilson: successes must be in [0, n = ${n}], got ${successes}`);
  if (n === 0) return { estimate: NaN, lo: NaN, hi: NaN, n: 0 };
  const z = normalQuantile(1 - (1 - level) / 2);
  const p = successes / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
  // the exact ends at 0 and n (rounding would leave 1e-17 off them)
  return { estimate: p, lo: successes === 0 ? 0 : Math.max(0, centre - half), hi: successes === n ? 1 : Math.min(1, centre + half), n };
}

/**
 * The success interval of per-cluster mean rates in [0, 1] (e.g. each query's success over its k samples):
 * Wilson's interval at n = the number of clusters and p = the mean of the means. Conservative for
 * correlated samples within a cluster (see the header); with one sample per cluster it is `wilson`.
 */
export function wilsonOfMeans(means: readonly number[], level = 0.95): Interval {
  for (const m of means) if (!(m >= 0 && m <= 1)) throw new Error(`wilsonOfMeans: every mean must be in [0, 1], got ${m}`);
  const total = means.reduce((a, b) => a + b, 0);
  return wilson(Math.min(means.length, total), means.length, level);
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7) */
function logGamma(x: number): number {
  const g = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let s = g[0];
  for (let i = 1; i < 9; i++) s += g[i] / (x + i);
  const t = x + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(s);
}

/** the regularized incomplete beta I_x(a, b) (continued fraction, Numerical Recipes' betacf) */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let f = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d; if (Math.abs(d) < tiny) d = tiny; d = 1 / d;
    c = 1 + num / c; if (Math.abs(c) < tiny) c = tiny;
    f *= d * c;
    num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d; if (Math.abs(d) < tiny) d = tiny; d = 1 / d;
    c = 1 + num / c; if (Math.abs(c) < tiny) c = tiny;
    const delta = d * c;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-14) break;
  }
  return (front * f) / a;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** the Student t quantile (0.975, 4) → 2.776; bisection on the CDF, to 1e-10 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`studentTQuantile: p must be in (0, 1), got ${p}`);
  if (!(df > 0)) throw new Error(`studentTQuantile: df must be positive, got ${df}`);
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-10; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
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
  if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`bootstrapInterval: resamples must be a positive integer, got ${resamples}`);
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
