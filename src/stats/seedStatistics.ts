// The statistics behind a finding's call: is one cell's gain over the SFT start larger than
// another's, across seeds? Each seed of a cell is one independent RL run, so a cell is a small sample of
// per-seed gains and two cells are compared the way Colas, Sigaud & Oudeyer (2018, "How Many Random
// Seeds?") recommend for deep RL: Welch's t-test on final performance, the number of seeds fixed
// beforehand by a power analysis, and (across a finding's several pairs) Holm's step-down correction.
// Beside it, rliable's probability of improvement (Agarwal et al. 2021) for readers who think in "how
// often does A beat B".
//
// The t and normal distributions come from stdlib (@stdlib/stats-base-dists-*): a well-kept, tested
// numerical library (its distributions are validated against R and Julia reference values), one small
// package per function, with TypeScript types and no dependencies beyond stdlib itself — so the lab
// carries no hand-written incomplete-beta or quantile approximations. Pure: no tfjs, no DOM, no fs.
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import chisquarePdf from '@stdlib/stats-base-dists-chisquare-pdf';
import chisquareQuantile from '@stdlib/stats-base-dists-chisquare-quantile';
import { Rng } from '../env/random.ts';
import { equivalenceFromEstimate, type EquivalenceTest } from './equivalence.ts';

/** a test of a difference of means: the estimate, its two-sided interval, and the two-sided p-value */
export interface DifferenceTest {
  /** which test: Welch's two-sample t-test, or the one-sample t-test against a fixed value */
  test: 'welch' | 'one-sample';
  /** mean(a) − mean(b), or mean(a) − mu for the one-sample test */
  difference: number;
  /** the interval's ends at `level` (Welch–Satterthwaite t) */
  lo: number;
  hi: number;
  /** the t statistic and its (Welch–Satterthwaite) degrees of freedom */
  t: number;
  df: number;
  /** two-sided p-value of "no difference" */
  p: number;
  nA: number;
  nB: number;
  /** the standard error of the difference (an interval at another level, or an equivalence test, reads it) */
  se: number;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const variance = (xs: readonly number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};

/** a sample's mean and SD (n − 1), as the tests use them; at least two values */
export function meanAndSd(xs: readonly number[]): { mean: number; sd: number } {
  checkSample('meanAndSd', xs);
  return { mean: mean(xs), sd: Math.sqrt(variance(xs)) };
}

function checkSample(name: string, xs: readonly number[]): void {
  if (xs.length < 2) throw new Error(`${name}: needs at least two values, got ${xs.length}`);
  for (const x of xs)
    if (!Number.isFinite(x)) throw new Error(`${name}: every value must be a finite number, got ${x}`);
}

/** the t test's figures from an estimate, its standard error and degrees of freedom */
function fromT<T extends string>(
  test: T,
  d: number,
  se: number,
  df: number,
  level: number,
  nA: number,
  nB: number,
): Omit<DifferenceTest, 'test'> & { test: T } {
  if (!(level > 0 && level < 1)) throw new Error(`level must be in (0, 1), got ${level}`);
  if (se === 0) {
    // every value equal within each sample: the difference is known exactly
    return {
      test,
      difference: d,
      lo: d,
      hi: d,
      t: d === 0 ? 0 : Math.sign(d) * Infinity,
      df,
      p: d === 0 ? 1 : 0,
      nA,
      nB,
      se,
    };
  }
  const t = d / se;
  const half = tQuantile(1 - (1 - level) / 2, df) * se;
  return {
    test,
    difference: d,
    lo: d - half,
    hi: d + half,
    t,
    df,
    p: Math.min(1, 2 * tCdf(-Math.abs(t), df)),
    nA,
    nB,
    se,
  };
}

/**
 * Welch's unequal-variance t-test of mean(a) − mean(b) (Welch 1947; degrees of freedom by
 * Satterthwaite 1946), with its two-sided `level` interval: the test Colas et al. (2018) recommend for
 * comparing two RL algorithms over seeds, since their seed-to-seed spreads need not be equal.
 */
export function welchTest(a: readonly number[], b: readonly number[], level = 0.95): DifferenceTest {
  checkSample('welchTest (a)', a);
  checkSample('welchTest (b)', b);
  const va = variance(a) / a.length;
  const vb = variance(b) / b.length;
  const se = Math.sqrt(va + vb);
  const df =
    se === 0 ? a.length + b.length - 2 : (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  return fromT('welch', mean(a) - mean(b), se, df, level, a.length, b.length);
}

/**
 * The one-sample t-test of mean(a) − mu (Student 1908): a cell against a fixed value — in the findings,
 * a cell against the SFT start, whose gain over itself is exactly 0.
 */
export function oneSampleTest(a: readonly number[], mu = 0, level = 0.95): DifferenceTest {
  checkSample('oneSampleTest', a);
  return fromT('one-sample', mean(a) - mu, Math.sqrt(variance(a) / a.length), a.length - 1, level, a.length, 0);
}

/** a contrast Σ cᵢ·meanᵢ over k independent cells, tested: the DifferenceTest's figures (nA, nB: the first two
 *  cells' seeds), with the standard error and every cell's seeds */
export interface ContrastTest extends Omit<DifferenceTest, 'test'> {
  test: 'contrast';
  n: number[];
}

/**
 * The t-test of a contrast Σ cᵢ·meanᵢ over k independent cells (an interaction is one: (a − b) − (c − d),
 * c = (1, −1, −1, 1)), each cell with its own variance: standard error √(Σ cᵢ² sᵢ²/nᵢ), degrees of freedom by
 * Welch–Satterthwaite (Σ cᵢ² sᵢ²/nᵢ)² / Σ (cᵢ² sᵢ²/nᵢ)²/(nᵢ − 1) (Satterthwaite 1946), two-sided p and
 * `level` interval from the t distribution. With k = 2 and c = (1, −1) it is welchTest.
 */
export function contrastTest(
  cells: readonly (readonly number[])[],
  weights: readonly number[],
  level = 0.95,
): ContrastTest {
  if (cells.length < 1 || cells.length !== weights.length)
    throw new Error(`contrastTest: one weight a cell, got ${cells.length} cells and ${weights.length} weights`);
  for (const w of weights)
    if (!Number.isFinite(w)) throw new Error(`contrastTest: every weight must be a finite number, got ${w}`);
  if (weights.every((w) => w === 0)) throw new Error('contrastTest: the weights are all 0');
  cells.forEach((xs, i) => checkSample(`contrastTest (cell ${i + 1})`, xs));
  const parts = cells.map((xs, i) => (weights[i] ** 2 * variance(xs)) / xs.length); // cᵢ² sᵢ²/nᵢ
  const v = parts.reduce((s, x) => s + x, 0);
  const se = Math.sqrt(v);
  const n = cells.map((xs) => xs.length);
  const df =
    se === 0 ? n.reduce((s, x) => s + x - 1, 0) : v ** 2 / parts.reduce((s, x, i) => s + x ** 2 / (n[i] - 1), 0);
  const estimate = cells.reduce((s, xs, i) => s + weights[i] * mean(xs), 0);
  return { ...fromT('contrast', estimate, se, df, level, n[0], n[1] ?? 0), n };
}

/** an interaction (plus[0] − plus[1]) − (minus[0] − minus[1]) over four independent cells, as contrastTest */
export function interactionTest(
  plus: readonly [readonly number[], readonly number[]],
  minus: readonly [readonly number[], readonly number[]],
  level = 0.95,
): ContrastTest {
  return contrastTest([plus[0], plus[1], minus[0], minus[1]], [1, -1, -1, 1], level);
}

/**
 * Holm's step-down adjusted p-values (Holm 1979): with m tests sorted by p, the i-th smallest is
 * multiplied by (m − i + 1) and the results made non-decreasing. Rejecting every adjusted p < α keeps
 * the family-wise error at α, and is never less powerful than Bonferroni. Returns them in input order.
 */
export function holmAdjust(ps: readonly number[]): number[] {
  for (const p of ps) if (!(p >= 0 && p <= 1)) throw new Error(`holmAdjust: every p must be in [0, 1], got ${p}`);
  const m = ps.length;
  const order = ps.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/** P(X > Y) + ½ P(X = Y) over every pair of a value of `a` and one of `b` (the Mann–Whitney U over n·m) */
function pairwiseImprovement(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (const x of a) for (const y of b) s += x > y ? 1 : x === y ? 0.5 : 0;
  return s / (a.length * b.length);
}

/**
 * rliable's probability of improvement (Agarwal et al. 2021, "Deep RL at the Edge of the Statistical
 * Precipice"): the chance that a run of A ends with a larger gain than a run of B, P(X > Y) + ½ P(X = Y),
 * with a percentile bootstrap interval that resamples each arm's seeds separately (rliable's stratified
 * bootstrap, one stratum per arm). Seeded: the same values give the same interval.
 */
export function probabilityOfImprovement(
  a: readonly number[],
  b: readonly number[],
  opts: { level?: number; resamples?: number; seed?: number } = {},
): { estimate: number; lo: number; hi: number } {
  if (a.length === 0 || b.length === 0) throw new Error('probabilityOfImprovement: both arms need values');
  const level = opts.level ?? 0.95;
  const resamples = opts.resamples ?? 2000;
  const rng = new Rng(opts.seed ?? 1);
  const draws = new Float64Array(resamples);
  const ra = new Array<number>(a.length);
  const rb = new Array<number>(b.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < a.length; i++) ra[i] = a[rng.int(a.length)];
    for (let i = 0; i < b.length; i++) rb[i] = b[rng.int(b.length)];
    draws[r] = pairwiseImprovement(ra, rb);
  }
  draws.sort();
  const at = (q: number) => draws[Math.min(resamples - 1, Math.max(0, Math.round((resamples - 1) * q)))];
  return { estimate: pairwiseImprovement(a, b), lo: at((1 - level) / 2), hi: at(1 - (1 - level) / 2) };
}

/** the pooled standard deviation of several samples, √(Σ (nᵢ − 1) sᵢ² / Σ (nᵢ − 1)), and its degrees of freedom */
export function pooledSd(samples: readonly (readonly number[])[]): { sd: number; df: number } {
  let ss = 0;
  let df = 0;
  for (const xs of samples) {
    if (xs.length < 2) continue;
    ss += variance(xs) * (xs.length - 1);
    df += xs.length - 1;
  }
  if (df === 0) throw new Error('pooledSd: no sample has two values');
  return { sd: Math.sqrt(ss / df), df };
}

/** a design with equal seeds a cell: how many cells, and Σ cᵢ² of the contrast tested (two cells, (1, −1): 2; an
 * interaction: 4) */
export interface ContrastDesign { cells: number; weightSquares: number }
/** the two-sample design of a pair */
export const TWO_SAMPLE: ContrastDesign = { cells: 2, weightSquares: 2 };
/** the four-cell design of an interaction (a − b) − (c − d) */
export const INTERACTION: ContrastDesign = { cells: 4, weightSquares: 4 };

/**
 * The power of a two-sided two-sample t-test with n seeds a cell, a true difference `delta` and a
 * common per-seed standard deviation `sd`, at level `alpha`: P(|T′| > t₁₋α/₂) where T′ is noncentral t
 * with 2n − 2 degrees of freedom and noncentrality δ / (σ √(2/n)) — what R's `power.t.test(strict =
 * TRUE)` computes (Welch's test with equal n and equal spreads has the same distribution). `design`
 * generalises it to a contrast over k cells of n seeds: k(n − 1) degrees of freedom (Welch–Satterthwaite's,
 * with equal n and spreads), noncentrality δ / (σ √(Σcᵢ²/n)). T′ = (Z + λ) / √(V/ν) with V ~ χ²(ν), so
 * P(T′ > c) = E_V[1 − Φ(c √(V/ν) − λ)]: integrated here over V by Simpson's rule between V's 1e-12 and
 * 1 − 1e-12 quantiles (stdlib's normal CDF and χ² density).
 */
export function twoSampleTPower(o: {
  n: number;
  delta: number;
  sd: number;
  alpha: number;
  design?: ContrastDesign;
}): number {
  const { n, delta, sd, alpha } = o;
  const { cells, weightSquares } = o.design ?? TWO_SAMPLE;
  if (!(Number.isInteger(n) && n >= 2)) throw new Error(`twoSampleTPower: n must be an integer ≥ 2, got ${n}`);
  if (!(sd > 0) || !(alpha > 0 && alpha < 1))
    throw new Error('twoSampleTPower: sd must be positive and alpha in (0, 1)');
  if (!(Number.isInteger(cells) && cells >= 2 && weightSquares > 0))
    throw new Error('twoSampleTPower: a design needs two cells or more and Σc² > 0');
  const df = cells * (n - 1);
  const ncp = delta / (sd * Math.sqrt(weightSquares / n));
  const c = tQuantile(1 - alpha / 2, df);
  const lo = chisquareQuantile(1e-12, df);
  const hi = chisquareQuantile(1 - 1e-12, df);
  const steps = 2000; // even
  const h = (hi - lo) / steps;
  let s = 0;
  for (let i = 0; i <= steps; i++) {
    const v = lo + i * h;
    const scale = Math.sqrt(v / df);
    const f = chisquarePdf(v, df) * (1 - normalCdf(c * scale - ncp, 0, 1) + normalCdf(-c * scale - ncp, 0, 1));
    s += (i === 0 || i === steps ? 1 : i % 2 ? 4 : 2) * f;
  }
  return Math.min(1, (s * h) / 3);
}

/** the fewest seeds a cell (2 ≤ n ≤ `max`) for which twoSampleTPower (of `design`, a pair by default) reaches
 *  `power`, by bisection (the power rises with n); null when even `max` seeds fall short */
export function fewestSeedsForPower(o: {
  delta: number;
  sd: number;
  alpha: number;
  power?: number;
  max: number;
  design?: ContrastDesign;
}): number | null {
  const ok = (n: number) =>
    twoSampleTPower({ n, delta: o.delta, sd: o.sd, alpha: o.alpha, design: o.design }) >= (o.power ?? 0.8);
  if (o.max < 2 || !ok(o.max)) return null;
  let lo = 1; // too few (one seed has no spread)
  let hi = o.max; // enough
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (mid >= 2 && ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** the fewest seeds a cell (n ≥ 2, at most `max`) for which twoSampleTPower reaches `power`; throws past `max` */
export function seedsForPower(o: {
  delta: number;
  sd: number;
  alpha: number;
  power?: number;
  max?: number;
  design?: ContrastDesign;
}): number {
  const max = o.max ?? 200;
  const n = fewestSeedsForPower({ ...o, max });
  if (n === null)
    throw new Error(`seedsForPower: more than ${max} seeds a cell for a difference of ${o.delta} at sd ${o.sd}`);
  return n;
}

/** the smallest difference a test with n seeds a cell detects with probability `power` (bisection on
 * twoSampleTPower) */
export function detectableDifference(o: { n: number; sd: number; alpha: number; power?: number }): number {
  const target = o.power ?? 0.8;
  let lo = 0;
  let hi = 20 * o.sd;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (twoSampleTPower({ n: o.n, delta: mid, sd: o.sd, alpha: o.alpha }) >= target) hi = mid; else lo = mid;
  }
  return hi;
}

/**
 * The level each test of a Holm family is decided at, so that an interval drawn at it agrees with the call:
 * Holm compares the k-th smallest p with α/(m − k + 1) and stops at the first it cannot reject; a test it reached
 * is decided at its own step's α/(m − k + 1), one after the stop at the stopping step's level (its p is at least
 * the stopping p, so its interval holds 0 as its call says). Returns, in input order, the two-sided α of each.
 * With one test it is α. (An interval at this level excludes 0 exactly when the Holm-adjusted p is below α.)
 */
export function holmLevels(ps: readonly number[], alpha = 0.05): number[] {
  for (const p of ps) if (!(p >= 0 && p <= 1)) throw new Error(`holmLevels: every p must be in [0, 1], got ${p}`);
  const m = ps.length;
  const order = ps.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(m);
  let stopped: number | null = null;
  order.forEach(([p, i], rank) => {
    const level = alpha / (m - rank);
    if (stopped === null && !(p < level)) stopped = level;
    out[i] = stopped ?? level;
  });
  return out;
}

/** the two-sided interval of an estimate at `alpha` (t with df): estimate ± t₁₋α/₂ · se */
export function intervalAt(difference: number, se: number, df: number, alpha: number): { lo: number; hi: number } {
  if (!(alpha > 0 && alpha < 1)) throw new Error(`intervalAt: alpha must be in (0, 1), got ${alpha}`);
  if (se === 0) return { lo: difference, hi: difference };
  const half = tQuantile(1 - alpha / 2, df) * se;
  return { lo: difference - half, hi: difference + half };
}

/** a compared pair's call: its Holm-adjusted test rejects with the claimed sign (supports) or the other
 *  (contradicts), or does not reject; `interim` while any of the finding's planned seeds is unfinished */
export type PairCall = 'supports' | 'contradicts' | 'not resolved' | 'interim';

/** one ordered pair "higher gains more than lower", tested */
export interface PairTest extends DifferenceTest, FamilyCall {
  /** P(a seed of higher gains more than a seed of lower), with its bootstrap interval; null against the start */
  improvement: { estimate: number; lo: number; hi: number } | null;
}

/** what a family's Holm procedure makes of one of its tests */
export interface FamilyCall {
  /** Holm-adjusted p across the family's testable members */
  pAdjusted: number;
  call: PairCall;
  /** the two-sided α the call is decided at (holmLevels: α/(m − k + 1) at Holm's step k; α for a family of one) and the
   *  interval at it, which excludes 0 exactly when the call is made — the interval to show beside the call */
  alpha: number;
  interval: { lo: number; hi: number; level: number; holm: boolean };
  /** the equivalence test at the family's ± delta (Schuirmann's TOST), Holm across the family; null without a delta */
  equivalence: (EquivalenceTest & { pAdjusted: number; shown: boolean }) | null;
}

/** one side of a pair: a cell's per-seed gains, or the SFT start (a gain of exactly 0) */
export type PairSide = readonly number[] | 'start';

/** the test of one pair: Welch between two cells, one-sample where a side is the start; null with fewer than two seeds
 * a side */
function testPair(
  higher: PairSide,
  lower: PairSide,
): (DifferenceTest & { improvement: PairTest['improvement'] }) | null {
  if (higher === 'start' && lower === 'start') return null;
  if ((higher !== 'start' && higher.length < 2) || (lower !== 'start' && lower.length < 2)) return null;
  if (lower === 'start') return { ...oneSampleTest(higher as number[]), improvement: null };
  if (higher === 'start') {
    // start − lower = −(lower − 0): the same test, its difference and interval mirrored
    const t = oneSampleTest(lower);
    return { ...t, difference: -t.difference, lo: -t.hi, hi: -t.lo, t: -t.t, nA: 0, nB: t.nA, improvement: null };
  }
  return { ...welchTest(higher, lower), improvement: probabilityOfImprovement(higher, lower) };
}

/**
 * A finding's pairs, each tested (welchTest / oneSampleTest), Holm-adjusted across the pairs that could
 * be tested, and called at family-wise `alpha`. `complete` false (planned seeds unfinished): every call
 * is `interim` — the figures are shown, no call is made (no optional stopping).
 */
export function testPairs(
  pairs: readonly { higher: PairSide; lower: PairSide }[],
  o: { alpha?: number; complete: boolean; delta?: number | null | readonly (number | null)[] },
): (PairTest | null)[] {
  return callFamily(
    pairs.map((p) => testPair(p.higher, p.lower)),
    o,
  );
}

/**
 * A family of tests (null: could not be tested), Holm-adjusted across those tested and each called at family-wise
 * `alpha`: supports / contradicts by the sign of a rejected test, interim while incomplete. Each carries the level
 * its call is made at and its interval there (holmLevels), and — with a `delta` — the equivalence test of
 * |difference| < delta, Holm-adjusted across the family's equivalence tests at the same `alpha`; `shown` only
 * once complete (an equivalence shown on unfinished seeds would be optional stopping too).
 */
function callFamily<T extends { p: number; difference: number; se: number; df: number }>(
  tests: readonly (T | null)[],
  o: { alpha?: number; complete: boolean; delta?: number | null | readonly (number | null)[] },
): ((T & FamilyCall) | null)[] {
  const alpha = o.alpha ?? 0.05;
  const done = tests.flatMap((t, i) => (t ? [i] : []));
  const adjusted = holmAdjust(done.map((i) => tests[i]!.p));
  const levels = holmLevels(
    done.map((i) => tests[i]!.p),
    alpha,
  );
  // one margin for the family, or one a test (a finding whose pairs read two metrics); Holm across those with one
  const deltaOf = (i: number) =>
    Array.isArray(o.delta) ? (o.delta[i] ?? null) : ((o.delta as number | null | undefined) ?? null);
  const eq = done.map((i) => {
    const d = deltaOf(i);
    return d === null ? null : equivalenceFromEstimate(tests[i]!.difference, tests[i]!.se, tests[i]!.df, d);
  });
  const withEq = eq.flatMap((e, k) => (e ? [k] : []));
  const eqAdjusted = holmAdjust(withEq.map((k) => eq[k]!.p));
  return tests.map((t, i) => {
    if (!t) return null;
    const k = done.indexOf(i);
    const pAdjusted = adjusted[k];
    const call: PairCall = !o.complete
      ? 'interim'
      : pAdjusted < alpha
        ? t.difference > 0
          ? 'supports'
          : 'contradicts'
        : 'not resolved';
    const level = levels[k];
    const interval = { ...intervalAt(t.difference, t.se, t.df, level), level: 1 - level, holm: done.length > 1 };
    const e = eq[k];
    const pe = e ? eqAdjusted[withEq.indexOf(k)] : NaN;
    const equivalence = e ? { ...e, pAdjusted: pe, shown: o.complete && pe < alpha } : null;
    return { ...t, pAdjusted, call, alpha: level, interval, equivalence };
  });
}

/** one interaction of a finding, tested: the claim is that it is positive ((plus[0] − plus[1]) larger than (minus[0] −
 * minus[1])) */
export interface InteractionTest extends ContrastTest, FamilyCall {}

/**
 * A finding's interactions, each tested (interactionTest), Holm-adjusted across those that could be tested
 * (a cell with fewer than two seeds: null) and called at family-wise `alpha` by the pairs' rule: supports
 * when the adjusted test rejects with the claimed (positive) sign, contradicts with the other, interim while
 * any planned seed is unfinished.
 */
export function testInteractions(
  items: readonly {
    plus: readonly [readonly number[], readonly number[]];
    minus: readonly [readonly number[], readonly number[]];
  }[],
  o: { alpha?: number; complete: boolean; delta?: number | null | readonly (number | null)[] },
): (InteractionTest | null)[] {
  return callFamily(
    items.map((x) => ([...x.plus, ...x.minus].every((c) => c.length >= 2) ? interactionTest(x.plus, x.minus) : null)),
    o,
  );
}

/** a finding's call from its pairs' calls */
export type FindingCall = 'agrees' | 'agrees in part' | 'disagrees' | 'mixed' | 'not resolved' | 'interim';

/** every pair supports → agrees; some support and none contradicts → agrees in part; some contradict and none
 *  supports → disagrees; both → mixed; none of either → not resolved; any unfinished → interim */
export function findingCall(calls: readonly PairCall[]): FindingCall {
  if (calls.length === 0 || calls.some((c) => c === 'interim')) return calls.length ? 'interim' : 'not resolved';
  const yes = calls.filter((c) => c === 'supports').length;
  const no = calls.filter((c) => c === 'contradicts').length;
  if (yes && no) return 'mixed';
  if (no) return 'disagrees';
  if (yes === calls.length) return 'agrees';
  return yes ? 'agrees in part' : 'not resolved';
}
