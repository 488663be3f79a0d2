// How a lesson's one run reads its verdict, and how often that reading misleads. A live run is one
// draw per arm, and one draw often disagrees with the committed seeds: the rule that read only the
// evaluation's Wilson interval (about ±5 points at 300 queries) called 40 of the tool-failures lesson's 165
// committed pairs "About the same" while the seeds differ by 18 points — it ignored the seed-to-seed spread
// (7–11 points a run). Here: the verdict rule that weighs a difference against that spread, the old rule kept
// for comparison, and the rates at which each reads each verdict, computed over every committed pair of
// runs (or every committed run, for a one-arm lesson). Exhaustive over the committed seeds, so deterministic
// with no sampling seed. Pure: no fs, no tfjs, no DOM.
import { normalQuantile, wilson } from '../stats/intervals.ts';
import { welchTest } from '../stats/seedStatistics.ts';
import type { Judge, Lesson } from './lessons.ts';
import type { SettingReference } from './lessonReference.ts';

/** the verdict of a run whose difference lies within what the seeds alone give: it decides none of the predictions */
export const UNDECIDED = 'undecided';
export const UNDECIDED_TEXT = 'Undecided: one run per arm cannot tell these arms apart at this seed-to-seed spread';

/** the two-sided 95 % normal quantile a difference must pass, in units of its seed-to-seed SD */
const Z95 = normalQuantile(0.975);

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** the sample SD (n − 1); 0 below two values */
export function sampleSd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

type EndsJudge = Extract<Judge, { kind: 'ends' }>;
type SpreadJudge = Extract<Judge, { kind: 'spread' }>;
type RisesJudge = Extract<Judge, { kind: 'rises' }>;

/**
 * The seed-aware rule for two ends (shares): a direction only when the difference passes 1.96 times its
 * seed-to-seed SD (`sdOfDifference`, from the committed seeds: √(s_a² + s_b²) for two runs, √(s_a² + s_b²/n_b)
 * for one run against the other arm's committed mean); within it, UNDECIDED — never "about the same", which
 * one draw cannot show when one draw alone moves this much.
 */
export function readEnds(j: EndsJudge, difference: number, sdOfDifference: number): string {
  if (!(Math.abs(difference) > Z95 * sdOfDifference)) return UNDECIDED;
  return difference > 0 ? j.aHigher : j.aLower;
}

/** the old rule, kept to measure what it cost: apart when the two ends' Wilson intervals (at `queries`) do not
 * overlap */
export function readEndsByEvaluation(j: EndsJudge, a: number, b: number, queries: number): string {
  const ia = wilson(Math.round(a * queries), queries);
  const ib = wilson(Math.round(b * queries), queries);
  if (!(ia.lo > ib.hi || ib.lo > ia.hi)) return j.same;
  return a > b ? j.aHigher : j.aLower;
}

/** the spread rule: how far apart two runs end (points), by the lesson's bounds */
export function readSpread(j: SpreadJudge, gapPoints: number): string {
  return j.bounds.find(([bound]) => gapPoints < bound)?.[1] ?? j.beyond;
}

/** the rises rule (one arm's training rollouts): the rate that rose more, or neither when neither rose `rise` */
export function readRises(j: RisesJudge, r0: number, r1: number): string {
  return Math.max(r0, r1) < j.rise ? j.neither : r0 >= r1 ? j.keys[0] : j.keys[1];
}

/** the median (of a non-empty list) */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** what one kind of draw reads, over every committed draw of that kind */
export interface VerdictRates {
  /** which draw: both arms run (a pair), or one arm run against the other's committed mean, or one run's rises */
  draw: 'pair' | 'first arm' | 'second arm' | 'one run';
  /** 'seed-aware' (the page's) or 'old' (the earlier rule, which ignored the spread across seeds) */
  rule: 'seed-aware' | 'old';
  draws: number;
  /** verdict key → how many draws read it */
  counts: Record<string, number>;
  /** the committed seeds' own answer, as a prediction key */
  committed: string;
  /** the share of draws reading a verdict the committed seeds contradict (UNDECIDED never counts) */
  misleading: number;
}

/** the committed seeds' answer to a lesson's question (null: too few seeds); for spread, the gap of the median
 * committed pair */
export function committedAnswer(lesson: Lesson, refs: readonly (SettingReference | null)[]): string | null {
  const j = lesson.judge;
  const [a, b] = refs;
  if (j.kind === 'ends') {
    if (!a || !b || a.seeds.length < 2 || b.seeds.length < 2) return null;
    const w = welchTest(a.eval.end, b.eval.end);
    return w.p >= 0.05 ? j.same : w.difference > 0 ? j.aHigher : j.aLower;
  }
  if (!a || a.seeds.length < 2) return null;
  if (j.kind === 'spread') return readSpread(j, median(pairGaps(a.eval.end)));
  const rises = risesOf(j, a);
  if (!rises) return null;
  return readRises(j, mean(rises[0]), mean(rises[1]));
}

/** every committed pair's gap in points (i < j) */
function pairGaps(ends: readonly number[]): number[] {
  const gaps: number[] = [];
  for (let i = 0; i < ends.length; i++)
    for (let k = i + 1; k < ends.length; k++) gaps.push(100 * Math.abs(ends[i] - ends[k]));
  return gaps;
}

/** per seed, the rise of each of the judge's two metrics (late − early window mean) */
function risesOf(j: RisesJudge, ref: SettingReference): [number[], number[]] | null {
  const w = j.metrics.map((m) => ref.windows[m]);
  if (w.some((x) => !x)) return null;
  return [w[0]!.late.map((l, i) => l - w[0]!.early[i]), w[1]!.late.map((l, i) => l - w[1]!.early[i])];
}

function tally(
  keys: readonly string[],
  committed: string,
  draw: VerdictRates['draw'],
  rule: VerdictRates['rule'],
): VerdictRates {
  const counts: Record<string, number> = {};
  for (const k of keys) counts[k] = (counts[k] ?? 0) + 1;
  // an undecided read claims nothing; "about the same" where the seeds do resolve a difference is as wrong as the
  // opposite
  const wrong = keys.filter((k) => k !== committed && k !== UNDECIDED).length;
  return { draw, rule, draws: keys.length, counts, committed, misleading: keys.length ? wrong / keys.length : 0 };
}

/**
 * How often one run (or one pair) of a lesson reads each verdict while the committed seeds hold: for a
 * comparison of ends, every committed pair (i, j) of the two arms, and every committed run of one arm
 * against the other's committed mean, under the page's seed-aware rule and the old evaluation-only one;
 * for lesson 5 every pair of its committed seeds (and, under the old rule, one seed's distance to the mean,
 * which it used to score); for the rises lesson every committed run of its first arm. [] without references.
 */
export function verdictRates(lesson: Lesson, refs: readonly (SettingReference | null)[]): VerdictRates[] {
  const committed = committedAnswer(lesson, refs);
  if (committed === null) return [];
  const j = lesson.judge;
  const [a, b] = refs as [SettingReference, SettingReference | null];
  if (j.kind === 'ends') {
    const A = a.eval.end;
    const B = b!.eval.end;
    const sA = sampleSd(A);
    const sB = sampleSd(B);
    const pairs = A.flatMap((x) => B.map((y) => [x, y] as const));
    const queries = Math.min(a.eval.queries, b!.eval.queries);
    const mA = mean(A);
    const mB = mean(B);
    return [
      tally(
        pairs.map(([x, y]) => readEnds(j, x - y, Math.hypot(sA, sB))),
        committed,
        'pair',
        'seed-aware',
      ),
      tally(
        pairs.map(([x, y]) => readEndsByEvaluation(j, x, y, queries)),
        committed,
        'pair',
        'old',
      ),
      tally(
        A.map((x) => readEnds(j, x - mB, Math.sqrt(sA ** 2 + sB ** 2 / B.length))),
        committed,
        'first arm',
        'seed-aware',
      ),
      tally(
        A.map((x) => readEndsByEvaluation(j, x, mB, queries)),
        committed,
        'first arm',
        'old',
      ),
      tally(
        B.map((y) => readEnds(j, mA - y, Math.sqrt(sB ** 2 + sA ** 2 / A.length))),
        committed,
        'second arm',
        'seed-aware',
      ),
      tally(
        B.map((y) => readEndsByEvaluation(j, mA, y, queries)),
        committed,
        'second arm',
        'old',
      ),
    ];
  }
  if (j.kind === 'spread') {
    const ends = a.eval.end;
    const m = mean(ends);
    return [
      tally(
        pairGaps(ends).map((g) => readSpread(j, g)),
        committed,
        'pair',
        'seed-aware',
      ),
      // one seed's distance to the committed mean: what the one-seed mode scored before (not a gap between two runs)
      tally(
        ends.map((x) => readSpread(j, 100 * Math.abs(x - m))),
        committed,
        'first arm',
        'old',
      ),
      // one run: the median of its gaps to every other committed seed, each a pair of runs like the question's
      tally(
        ends.map((x, i) => readSpread(j, median(ends.filter((_, k) => k !== i).map((y) => 100 * Math.abs(x - y))))),
        committed,
        'first arm',
        'seed-aware',
      ),
    ];
  }
  const rises = risesOf(j, a)!;
  const keys = rises[0].map((r0, i) => readRises(j, r0, rises[1][i]));
  return [tally(keys, committed, 'one run', 'seed-aware')];
}
