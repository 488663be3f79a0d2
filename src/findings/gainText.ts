// A finding's figures as text: a pair's line, an interaction's line, an interval at its call's level, the
// equivalence test's sentence, and the standard table as Markdown (table.md). The page, the lessons and the
// sweep all say a comparison in these words, so they cannot read differently. Pure: no tfjs, no DOM, no fs.
import { gridMarkdown, madeByMarkdown } from './findingTable.ts';
import type { CommittedComparison } from './committedComparison.ts';
import type { PairCall } from '../stats/seedStatistics.ts';
import {
  callInterval,
  gainText,
  signed,
  type GainCell,
  type GainInteraction,
  type GainPair,
  type GainTable,
} from './findingGains.ts';

/** `97.5 %` (a level as a percentage, at most two decimals) */
export const levelPercent = (level: number) => `${Number((100 * level).toFixed(2))} %`;

/** `[+9.3, +25.8] (97.5 %, Holm)`: an interval at its call's level, saying whether Holm set that level */
export function intervalText(i: { lo: number; hi: number; level: number; holm: boolean }): string {
  return `[${signed(i.lo)}, ${signed(i.hi)}] (${levelPercent(i.level)}${i.holm ? ', Holm' : ''})`;
}

/** what the equivalence test says of a pair not resolved: shown (|Δ| < δ), or not shown; '' where there is none */
export function equivalenceText(e: GainPair['equivalence'] | undefined, call: PairCall): string {
  if (!e || call === 'supports' || call === 'contradicts' || call === 'interim') return '';
  return e.shown
    ? `; the equivalence test (TOST at ±${e.delta}, Holm ${fmtP(e.pAdjusted)}) rules out a difference of ${e.delta} points`
    : `; the equivalence test (TOST at ±${e.delta}, Holm ${fmtP(e.pAdjusted)}) does not rule out ${e.delta} points`;
}

/** a pair's line: `A > B: +12.3 [+4.1, +20.5] (97.5 %, Holm), Welch p = 0.004 (Holm p = 0.008), P(A beats B) 0.86 —
 * supports` */
export function pairText(p: GainPair): string {
  const ci = callInterval(p);
  if (p.difference === null || !ci) return `${p.higher} > ${p.lower}: ${p.call} (fewer than two seeds)`;
  const [a, b] = shortLabels(p.higher, p.lower);
  const poi = p.improvement
    ? `, P(${a} beats ${b}) ${p.improvement.estimate.toFixed(2)} [${p.improvement.lo.toFixed(2)}, ${p.improvement.hi.toFixed(2)}]`
    : '';
  return `${p.higher} > ${p.lower}: ${signed(p.difference)} ${intervalText(ci)}, ${p.test === 'welch' ? 'Welch' : 'one-sample t'} ${fmtP(p.p!)} (Holm ${fmtP(p.pAdjusted!)})${poi}, ${p.seeds.filter((x) => x > 0).join(' vs ')} seeds — **${p.call}**${equivalenceText(p.equivalence, p.call)}`;
}

/** an interaction's line: `(1.5B · ARPO − 1.5B · GRPO) − (7B · ARPO − 7B · GRPO): +7.2 [−3.1, +17.5] (97.5 %, Holm), p
 * = 0.16 (Holm 0.32); paper +11.9 — not resolved` */
export function interactionText(x: GainInteraction): string {
  const head = `(${x.plus[0]} − ${x.plus[1]}) − (${x.minus[0]} − ${x.minus[1]})`;
  const paper = x.paper === null ? 'paper: no figure for every cell' : `paper ${signed(x.paper)}`;
  const ci = callInterval(x);
  if (x.difference === null || !ci) return `${head}: ${x.call} (fewer than two seeds in a cell); ${paper}`;
  return `${head}: ${signed(x.difference)} ${intervalText(ci)}, Welch–Satterthwaite ${fmtP(x.p!)} (Holm ${fmtP(x.pAdjusted!)}), ${x.seeds.join('/')} seeds; ${paper} — **${x.call}**${equivalenceText(x.equivalence, x.call)}`;
}

/**
 * A pair's committed answer as every page states it (the lessons' takeaway and class view, beside the Findings
 * view's forest): `0 % > 10 %: +17.5 [+9.3, +25.8] (97.5 %, Holm), Welch p < 0.001 (Holm p < 0.001); T7's planned
 * seeds, 11 and 11 — supports`. One text from one answer, so no two places can state the pair differently.
 */
export function comparisonText(c: CommittedComparison): string {
  const [a, b] = shortLabels(c.higher, c.lower);
  const seeds = `${c.finding}'s planned seeds, ${c.seeds.filter((n) => n > 0).join(' and ')}`;
  if (c.difference === null || !c.interval) return `${a} > ${b}: ${c.call} (fewer than two seeds on a side); ${seeds}`;
  return `${a} > ${b}: ${signed(c.difference)} ${intervalText(c.interval)}, ${c.test === 'one-sample' ? 'one-sample t' : 'Welch'} ${fmtP(c.p!)} (Holm ${fmtP(c.pAdjusted!)}); ${seeds} — ${c.call}${equivalenceText(c.equivalence, c.call)}`;
}

/** an interaction in short: `DAPO − GRPO: 1.5B against 7B` (the difference, then the two levels it is compared at) */
export function interactionLabel(x: Pick<GainInteraction, 'plus' | 'minus'>): string {
  const [a, b] = shortLabels(x.plus[0], x.plus[1]);
  const [c, d] = shortLabels(x.minus[0], x.minus[1]);
  const common = (l: string, short: string) => l.split(' · ').find((part) => part !== short) ?? l;
  if (a !== c || b !== d || a === x.plus[0]) return `(${x.plus[0]} − ${x.plus[1]}) − (${x.minus[0]} − ${x.minus[1]})`;
  return `${a} − ${b}: ${common(x.plus[0], a)} against ${common(x.minus[0], c)}`;
}

/** the parts of two cells' labels that tell them apart ('3B · Curriculum', '3B · Sum' → 'Curriculum', 'Sum') */
export function shortLabels(a: string, b: string): [string, string] {
  const [pa, pb] = [a.split(' · '), b.split(' · ')];
  if (pa.length !== 2 || pb.length !== 2) return [a, b];
  if (pa[0] === pb[0]) return [pa[1], pb[1]];
  if (pa[1] === pb[1]) return [pa[0], pb[0]];
  return [a, b];
}

/** `p = 0.012`, or `p < 0.001` */
export const fmtP = (p: number) => (p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);

export function gainMarkdown(t: GainTable): string {
  const cell = (c: GainCell | undefined) => {
    if (!c) return '';
    if (c.sft) return c.mean.start === null ? '…' : `start ${c.mean.start.toFixed(1)}`;
    const own =
      c.seeds.length === 0
        ? '… not run yet'
        : !c.compared
          ? `${gainText(c)} (${c.seeds.length} seeds, not compared)`
          : c.seeds.length < c.planned
            ? `${gainText(c)} (${c.seeds.length}/${c.planned} seeds)`
            : gainText(c);
    return c.paperGain === null ? own : `${own} (paper ${signed(c.paperGain)})`;
  };
  const nulls = t.nullControl.map(
    (c) =>
      `${c.col} ${c.seeds.length ? gainText(c) : '… not run yet'}${c.seeds.length && c.seeds.length < c.planned ? ` (${c.seeds.length}/${c.planned} seeds)` : ''}`,
  );
  const lines = [
    ...gridMarkdown(t, cell),
    '',
    `Gain over the SFT start in points (end − start, mean over seeds ± the half-width of its 95 % t interval; the paper's gain over its SFT column in parentheses; … = not run yet).`,
    `Each compared difference's interval is at the level its call is made at: Holm's step level across the finding's pairs (α/m for the smallest p, …), 95 % for a finding of one pair; "rules out" only where Schuirmann's equivalence test (two one-sided Welch tests at the power plan's δ, Holm across the pairs) rejects.`,
    `Null control (the base with shuffled advantages${t.nullControl.some((c) => c.col !== c.metric) ? ', one per scale' : ''}): ${nulls.join(', ')}.`,
    `Compared: ${t.compares.doc}.`,
    '',
    ...t.compares.pairs.map((p) => `- ${pairText(p)}`),
    '',
    ...(t.compares.interactions?.length
      ? [
          `Scale × choice interactions (the claim says these are positive; a difference of differences over four cells, Holm across the ${t.compares.interactions.length}):`,
          '',
          ...t.compares.interactions.map((x) => `- ${interactionText(x)}`),
          '',
        ]
      : []),
    `Call: **${t.direction.call}** — ${t.direction.sentence}`,
    '',
    madeByMarkdown(t, `${Math.round(t.coreMinutes)} core-min`),
  ];
  return lines.join('\n');
}
