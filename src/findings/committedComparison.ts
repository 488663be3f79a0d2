// The committed answer to a pair of a finding (one question, one answer). A comparison the lab states —
// on the Findings view, in a lesson's takeaway and class view, in README and docs — is this function's answer
// from the finding's committed table: the finding's planned seeds of both cells (the table holds exactly those),
// the sign with the paper's direction positive (a pair reads "higher gains more than lower", as the claim orders
// it), Welch's test on the runs' unrounded gains, Holm across the finding's pairs, the interval at the level the
// call is made at, and Schuirmann's equivalence test at the power plan's δ (Holm across the pairs) behind any
// "rules out". The sweep writes the table's pairs with it; every reader recomputes the same from the same cells.
// Pure: no tfjs, no DOM, no fs.
import type { CellMetric } from './findings.ts';
import { pooledSd, testPairs, type PairCall, type PairSide } from '../stats/seedStatistics.ts';

/** what the comparison needs of a table's cell (findingGains.ts GainCell) */
export interface ComparisonCell {
  row: string;
  col: string;
  metric: CellMetric;
  seeds: readonly number[];
  /** per seed, end − start in points, unrounded */
  gain: readonly number[];
  planned: number;
  compared?: boolean;
}

/** what it needs of a table (findingGains.ts GainTable) */
export interface ComparisonTable {
  id: string;
  cells: readonly ComparisonCell[];
  nullControl: readonly ComparisonCell[];
  compares: {
    alpha: number;
    pairs: readonly { higher: string; lower: string }[];
    delta?: Partial<Record<CellMetric, number>> | null;
  };
}

/** the SFT start's label on a pair: a gain of exactly 0, no seeds */
export const START_LABEL = 'the SFT start';

/** one pair's committed answer; figures in points, unrounded (round for display only) */
export interface CommittedComparison {
  finding: string;
  higher: string;
  lower: string;
  /** seeds behind each side (0: the start) */
  seeds: [number, number];
  call: PairCall;
  /** null while a side has fewer than two seeds */
  test: 'welch' | 'one-sample' | null;
  /** mean gain of higher − mean gain of lower: positive is the paper's direction */
  difference: number | null;
  /** the 95 % interval (for a reader who wants the usual one) */
  ci95: { lo: number; hi: number } | null;
  /** the interval at the level the call is made at: 95 % for a finding of one pair, Holm's step level otherwise */
  interval: { lo: number; hi: number; level: number; holm: boolean } | null;
  df: number | null;
  p: number | null;
  pAdjusted: number | null;
  /** the equivalence test of |difference| < δ (the power plan's smallest difference worth detecting for the pair's
   *  metric), Holm across the finding's pairs; `shown`: it rejects, and only then may a sentence say "rules out δ" */
  equivalence: { delta: number; p: number; pAdjusted: number; shown: boolean } | null;
  improvement: { estimate: number; lo: number; hi: number } | null;
  /** the per-seed SD of the gains pooled over both sides' planned seeds (points; a power calculation reads it) */
  sd: number | null;
}

const labelOf = (c: Pick<ComparisonCell, 'row' | 'col'>) => `${c.row} · ${c.col}`;

/** every compared cell and null control has its planned seeds: only then does a table call anything */
export function tableComplete(t: Pick<ComparisonTable, 'cells' | 'nullControl'>): boolean {
  return [...t.cells.filter((c) => c.compared !== false), ...t.nullControl].every((c) => c.seeds.length >= c.planned);
}

/** a side's per-seed gains over its planned seeds ('start': exactly 0); throws on a label the table has not */
function side(t: ComparisonTable, label: string): { gains: PairSide; metric: CellMetric | null } {
  if (label === START_LABEL) return { gains: 'start', metric: null };
  const c = t.cells.find((x) => labelOf(x) === label);
  if (!c) throw new Error(`${t.id}: a pair names the cell "${label}", which the table has not`);
  return { gains: c.gain.slice(0, Math.max(c.planned, 0) || c.gain.length), metric: c.metric };
}

/** every pair of the finding, tested as one Holm family (the table's pairs, in its order) */
export function comparePairs(t: ComparisonTable): CommittedComparison[] {
  const complete = tableComplete(t);
  const sides = t.compares.pairs.map((p) => [side(t, p.higher), side(t, p.lower)] as const);
  const deltas = sides.map(([a, b]) => {
    const metric = a.metric ?? b.metric;
    return metric ? t.compares.delta?.[metric] ?? null : null;
  });
  const tests = testPairs(
    sides.map(([a, b]) => ({ higher: a.gains, lower: b.gains })),
    { alpha: t.compares.alpha, complete, delta: deltas },
  );
  return t.compares.pairs.map((p, i) => {
    const [a, b] = sides[i];
    const n = (s: PairSide) => (s === 'start' ? 0 : s.length);
    const base = {
      finding: t.id,
      higher: p.higher,
      lower: p.lower,
      seeds: [n(a.gains), n(b.gains)] as [number, number],
    };
    const x = tests[i];
    const spread = [a.gains, b.gains].filter((g): g is readonly number[] => g !== 'start' && g.length >= 2);
    const sd = spread.length ? pooledSd(spread).sd : null;
    if (!x)
      return {
        ...base,
        call: complete ? 'not resolved' : 'interim',
        test: null,
        difference: null,
        ci95: null,
        interval: null,
        df: null,
        p: null,
        pAdjusted: null,
        equivalence: null,
        improvement: null,
        sd,
      };
    const e = x.equivalence;
    return {
      ...base,
      call: x.call,
      test: x.test === 'one-sample' ? 'one-sample' : 'welch',
      difference: x.difference,
      ci95: { lo: x.lo, hi: x.hi },
      interval: x.interval,
      df: Number.isFinite(x.df) ? x.df : null,
      p: x.p,
      pAdjusted: x.pAdjusted,
      equivalence: e ? { delta: e.delta, p: e.p, pAdjusted: e.pAdjusted, shown: e.shown } : null,
      improvement: x.improvement,
      sd,
    };
  });
}

/** the committed answer to one pair of a finding's table; null when the table has no such pair */
export function committedComparison(t: ComparisonTable, higher: string, lower: string): CommittedComparison | null {
  const i = t.compares.pairs.findIndex((p) => p.higher === higher && p.lower === lower);
  return i < 0 ? null : comparePairs(t)[i];
}
