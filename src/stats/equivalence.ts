// Equivalence: is a difference shown to be smaller than a margin δ? A test of "no difference" that does not
// reject says nothing of absence; Schuirmann's (1987) two one-sided tests do: reject both "d ≤ −δ" and "d ≥ +δ"
// at α and |d| < δ is shown at α. The findings use it for "rules out a difference of δ" (δ: the power plan's
// smallest difference worth detecting), Holm across a finding's pairs (seedStatistics.ts). Held to R's
// `equivalence::tost` (test/fixtures/tost-r.json). Pure: no tfjs, no DOM, no fs.
import tCdf from '@stdlib/stats-base-dists-t-cdf';

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const variance = (xs: readonly number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};

function checkSample(name: string, xs: readonly number[]): void {
  if (xs.length < 2) throw new Error(`${name}: needs at least two values, got ${xs.length}`);
  for (const x of xs)
    if (!Number.isFinite(x)) throw new Error(`${name}: every value must be a finite number, got ${x}`);
}

/** an equivalence test of a difference against ± `delta`: both one-sided tests, and the TOST p (the larger) */
export interface EquivalenceTest {
  /** the estimate, its standard error and (Welch–Satterthwaite) degrees of freedom */
  difference: number;
  se: number;
  df: number;
  /** the equivalence margin: "the difference lies within ± delta" is the claim tested */
  delta: number;
  /** H0: difference ≤ −delta, against > −delta: t = (d + δ)/se, p = P(T ≥ t) */
  lower: { t: number; p: number };
  /** H0: difference ≥ +delta, against < +delta: t = (d − δ)/se, p = P(T ≤ t) */
  upper: { t: number; p: number };
  /** the TOST p-value, max(lower.p, upper.p): below α, the difference is shown to lie within ± delta */
  p: number;
}

/**
 * Schuirmann's (1987) two one-sided tests of equivalence from an estimate, its standard error and degrees of
 * freedom: rejecting both "d ≤ −δ" and "d ≥ +δ" at α shows |d| < δ at α — the same as the (1 − 2α) interval lying
 * inside (−δ, +δ). A claim of absence ("rules out a difference of δ") needs this test: a two-sided interval that
 * merely misses ±δ at 95 % is a 2.5 % one-sided test per side, not one chosen for the claim.
 */
export function equivalenceFromEstimate(difference: number, se: number, df: number, delta: number): EquivalenceTest {
  if (!(delta > 0) || !Number.isFinite(delta))
    throw new Error(`equivalence: delta must be a positive number, got ${delta}`);
  if (!Number.isFinite(difference) || !(se >= 0) || !(df > 0))
    throw new Error('equivalence: needs a finite estimate, se ≥ 0 and df > 0');
  if (se === 0) {
    const inside = Math.abs(difference) < delta;
    const side = (ok: boolean) => ({ t: ok ? Infinity : -Infinity, p: ok ? 0 : 1 });
    const lower = side(difference > -delta);
    const upper = side(difference < delta);
    return { difference, se, df, delta, lower, upper: { t: -upper.t, p: upper.p }, p: inside ? 0 : 1 };
  }
  const tl = (difference + delta) / se;
  const tu = (difference - delta) / se;
  const lower = { t: tl, p: 1 - tCdf(tl, df) };
  const upper = { t: tu, p: tCdf(tu, df) };
  return { difference, se, df, delta, lower, upper, p: Math.max(lower.p, upper.p) };
}

/** Schuirmann's TOST with Welch's unequal-variance t (the "Schuirmann–Welch" test): is |mean(a) − mean(b)| < delta? */
export function welchEquivalence(a: readonly number[], b: readonly number[], delta: number): EquivalenceTest {
  checkSample('welchEquivalence (a)', a);
  checkSample('welchEquivalence (b)', b);
  const va = variance(a) / a.length;
  const vb = variance(b) / b.length;
  const se = Math.sqrt(va + vb);
  const df =
    se === 0 ? a.length + b.length - 2 : (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  return equivalenceFromEstimate(mean(a) - mean(b), se, df, delta);
}

/** the one-sample TOST: is |mean(a) − mu| < delta? (a cell against the SFT start) */
export function oneSampleEquivalence(a: readonly number[], delta: number, mu = 0): EquivalenceTest {
  checkSample('oneSampleEquivalence', a);
  return equivalenceFromEstimate(mean(a) - mu, Math.sqrt(variance(a) / a.length), a.length - 1, delta);
}
