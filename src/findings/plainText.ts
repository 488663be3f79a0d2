// A comparison in one plain sentence a student can repeat, written from the same record as its statistics (the
// committed comparison, a finding's table, a lesson's Welch test): the page leads with it and the figures follow.
// Its strength words follow the test and nothing else — "well beyond seed-to-seed chance" only where the test
// rejected, "no difference detected" where it did not, "the same within ±δ points" only where the equivalence test
// (TOST) rejected at δ; never "no effect". Pure: no tfjs, no DOM.
import type { CellMetric, FindingId } from './findings.ts';
import { START_LABEL } from './committedComparison.ts';
import type { PairCall } from '../stats/seedStatistics.ts';

export interface PlainComparison {
  /** the first side, as a phrase that follows "with" ("0 % tool failures") */
  a: string;
  /** the second side; null: the SFT start (a gain of 0) */
  b: string | null;
  metric: CellMetric;
  /** what is compared: the gain over the SFT start, or where the runs end */
  measure: 'gain' | 'end';
  /** mean of a − mean of b, in points; null while a side has fewer than two seeds */
  difference: number | null;
  /** the test's answer: it rejected "no difference", it did not, or the planned seeds have not all run */
  outcome: 'rejected' | 'not rejected' | 'interim';
  /** the equivalence test at ±delta points; `shown`: it rejected (only then "the same within ±δ") */
  equivalence?: { delta: number; shown: boolean } | null;
}

const METRIC_WORDS: Record<CellMetric, string> = { success: 'success', ood: 'out-of-domain (OOD) accuracy' };
const pts = (x: number) => `${Math.abs(x).toFixed(1)} point${Math.abs(x).toFixed(1) === '1.0' ? '' : 's'}`;
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
const verb = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** the figure itself: "gains 17.5 points more success than with B" / "ends 3.1 points lower in success than with B" */
function amount(x: PlainComparison, d: number): string {
  const m = METRIC_WORDS[x.metric];
  if (x.b === null) return `${d >= 0 ? 'gains' : 'loses'} ${pts(d)} of ${m} over its SFT start`;
  return x.measure === 'gain'
    ? `gains ${pts(d)} ${d >= 0 ? 'more' : 'less'} ${m} than with ${x.b}`
    : `ends ${pts(d)} ${d >= 0 ? 'higher' : 'lower'} in ${m} than with ${x.b}`;
}

/** the one plain sentence of a comparison (see the file's head for its strength words) */
export function plainSentence(x: PlainComparison): string {
  const d = x.difference;
  const other = x.b === null ? 'its SFT start' : `with ${x.b}`;
  if (d === null) return `Fewer than two seeds on a side so far: no comparison of ${x.a} and ${other} yet.`;
  const head = `With ${x.a}, the agent`;
  if (x.outcome === 'interim')
    return `Not every planned seed has run yet: so far, with ${x.a}, the agent ${amount(x, d)}; no call until they have.`;
  if (x.outcome === 'rejected') return `${head} ${amount(x, d)}, well beyond seed-to-seed chance.`;
  const eq = x.equivalence;
  if (eq?.shown) {
    const what = x.measure === 'gain' ? 'gains' : 'ends at';
    return `${head} ${what} the same ${METRIC_WORDS[x.metric]} as ${other}, within ±${eq.delta} points: no difference detected, and the equivalence test rules out a larger one.`;
  }
  return `${head} ${amount(x, d)} in these runs, but seed-to-seed chance could give that much: no difference detected.`;
}

/** a finding's call on one pair as the test's outcome */
export function outcomeOf(call: PairCall): PlainComparison['outcome'] {
  return call === 'interim' ? 'interim' : call === 'not resolved' ? 'not rejected' : 'rejected';
}

/** a cell of a finding as a phrase after "with": its row and column in words (hand-written words, no figures) */
const SIDES: Record<FindingId, (row: string, col: string) => string> = {
  T1: (row, col) => `the ${col} reward at ${row}`,
  T2: (row) => (row === 'SFT' ? 'the SFT start alone' : `${row}-reward training`),
  T3: (row, col) => `the ${row} reward at ${col}`,
  T4: (_row, col) => `${col} training queries`,
  T5: (_row, col) => (col === 'hard only' ? 'hard queries only' : `a ${col} mix of easy, medium and hard queries`),
  T6: (row, col) => `${col} at ${row}`,
  T7: (_row, col) => `${col === '0 %' ? 'no' : col} tool failures`,
};

/** the metric a cell's label names (T2 and T4 compare OOD accuracy in some cells) */
const metricOfLabel = (label: string): CellMetric => (/\bOOD\b/.test(label) ? 'ood' : 'success');

/** a cell label ("3B · Curriculum") of a finding as a phrase after "with"; the SFT start as null */
export function sidePhrase(finding: string, label: string): string | null {
  if (label === START_LABEL) return null;
  const [row, col] = label.split(' · ');
  const side = (SIDES as Partial<Record<string, (row: string, col: string) => string>>)[finding];
  return side && col !== undefined ? side(row, col) : label;
}

/** what a finding's pair needs: the committed comparison (committedComparison.ts) or a table's pair
 * (findingGains.ts) */
export interface PlainPairInput {
  higher: string;
  lower: string;
  call: PairCall;
  difference: number | null;
  equivalence?: { delta: number; shown: boolean } | null;
}

/** a finding's pair in one plain sentence, from its committed record */
export function plainPair(finding: string, p: PlainPairInput): string {
  return plainSentence({
    a: sidePhrase(finding, p.higher) ?? p.higher,
    b: sidePhrase(finding, p.lower),
    metric: metricOfLabel(p.higher),
    measure: 'gain',
    difference: p.difference,
    outcome: outcomeOf(p.call),
    equivalence: p.equivalence ?? null,
  });
}

/** a finding's call over all its pairs in one plain sentence: its one pair's sentence, or how many of its pairs the
 * test found apart, the paper's way and the other way */
export function plainFinding(finding: string, pairs: readonly PlainPairInput[]): string {
  if (pairs.length === 1) return plainPair(finding, pairs[0]);
  if (pairs.some((p) => p.call === 'interim'))
    return `Not every planned seed has run yet, so the ${pairs.length} comparisons make no call.`;
  const n = (c: PairCall) => pairs.filter((p) => p.call === c).length;
  const [yes, no, open] = [n('supports'), n('contradicts'), n('not resolved')];
  const same = pairs.filter((p) => p.call === 'not resolved' && p.equivalence?.shown);
  const deltas = [...new Set(same.map((p) => p.equivalence!.delta))];
  const parts =
    yes || no
      ? [
          ...(yes
            ? [
                `${yes} of the ${pairs.length} comparisons the paper makes ${verb(yes, 'comes', 'come')} out its way, well beyond seed-to-seed chance`,
              ]
            : []),
          ...(no
            ? [
                `${no} ${yes ? '' : `of the ${pairs.length} comparisons the paper makes `}${verb(no, 'comes', 'come')} out the other way, well beyond seed-to-seed chance`,
              ]
            : []),
          ...(open ? [`${open} ${verb(open, 'shows', 'show')} no difference detected`] : []),
        ]
      : [
          `none of the ${pairs.length} comparisons the paper makes shows a difference beyond seed-to-seed chance (no difference detected)`,
        ];
  const within = same.length
    ? `; in ${same.length === pairs.length ? 'all' : same.length} of them the equivalence test puts the two settings within ±${deltas.join(' or ±')} points`
    : '';
  return `${cap(parts.join('; '))}${within}.`;
}

/** a finding's scale × choice interaction, as it reads in words: whose edge changes, and where it is measured */
const INTERACTION_WORDS: Record<string, { edge: (a: string, b: string) => string; where: (x: string) => string }> = {
  T1: { edge: (a, b) => `the ${a} reward's edge over the ${b} reward`, where: (x) => `at ${x}` },
  T3: { edge: (a, b) => `${a}'s edge over ${b}`, where: (x) => `with the ${x} reward` },
  T6: { edge: (a, b) => `${a}'s edge over ${b}`, where: (x) => `at ${x}` },
};

/** what plainInteraction needs of a finding's interaction record (findingGains.ts GainInteraction) */
export interface PlainInteractionInput {
  /** `[x · a, x · b]` and `[y · a, y · b]`: (a − b) at x, minus (a − b) at y */
  plus: readonly [string, string];
  minus: readonly [string, string];
  call: PairCall;
  difference: number | null;
  equivalence?: { delta: number; shown: boolean } | null;
}

/** a scale × choice interaction in one plain sentence, from its record, with the same strength words as a pair's */
export function plainInteraction(finding: string, g: PlainInteractionInput): string {
  const [x, a] = g.plus[0].split(' · ');
  const b = g.plus[1].split(' · ')[1];
  const y = g.minus[0].split(' · ')[0];
  const words = INTERACTION_WORDS[finding] ?? INTERACTION_WORDS.T6;
  const edge = `${words.edge(a, b)} in success`;
  const [atX, atY] = [words.where(x), words.where(y)];
  const d = g.difference;
  if (d === null) return `Fewer than two seeds in a cell so far: no test yet of whether ${edge} changes between ${x} and ${y}.`;
  const amount = `${pts(d)} ${d >= 0 ? 'larger' : 'smaller'} ${atX} than ${atY}`;
  const outcome = outcomeOf(g.call);
  if (outcome === 'interim')
    return `Not every planned seed has run yet: so far ${edge} is ${amount}; no call until they have.`;
  if (outcome === 'rejected') return `${cap(edge)} is ${amount}, well beyond seed-to-seed chance.`;
  if (g.equivalence?.shown)
    return `${cap(edge)} is the same ${atX} as ${atY}, within ±${g.equivalence.delta} points: no difference detected, and the equivalence test rules out a larger change.`;
  return `${cap(edge)} is ${amount} in these runs, but seed-to-seed chance could give that much: no difference detected.`;
}
