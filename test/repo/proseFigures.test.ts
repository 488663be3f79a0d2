// The figures README.md and docs/*.md restate from the committed findings records, checked against the records:
// each claim names where a figure stands (the words just before it) and computes the figure from the record —
// a pair's answer by the one committed comparison (src/findings/committedComparison.ts) from the table's cells,
// an interaction and the planned test from their records. When a record is re-made and a sentence no longer
// agrees, the test names the file and quotes the sentence. A sentence that moves or is reworded must keep its
// words before the figure, or the claim here moves with it. The words a test allows are held too: "not detected"
// where a test did not reject, "rules out" only beside an equivalence test, an interval wherever "small" is said,
// unplanned contrasts labelled exploratory; the sentences that once said more than their test are listed, and fail
// if put back. Reads files only (the 80 planned runs' summaries among them): about a second.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { committedComparison, comparePairs, type ComparisonTable, type CommittedComparison } from '../../src/findings/committedComparison.ts';
import { callInterval, signed, type GainInteraction, type GainTable } from '../../src/findings/findingGains.ts';
import { intervalText } from '../../src/findings/gainText.ts';
import type { InteractionTestRecord } from '../../src/findings/interactionTestRecord.ts';
import type { InteractionPlan } from '../../src/findings/interactionPlan.ts';
import type { ConfirmatoryPlan } from '../../src/findings/confirmatoryPlan.ts';
import { confirmatoryStatusSentence, type ConfirmatoryTestRecord } from '../../src/findings/confirmatoryTestRecord.ts';
import type { BeyondTestRecord } from '../../src/findings/beyondTest.ts';
import { noSignalLine } from '../../src/findings/beyondText.ts';
import type { PowerPlan } from '../../src/findings/powerPlan.ts';
import { realisedPower } from '../../src/findings/resolveCost.ts';
import { equivalenceFromEstimate } from '../../src/stats/equivalence.ts';
import { holmAdjust, interactionTest, INTERACTION, pooledSd, twoSampleTPower, welchTest } from '../../src/stats/seedStatistics.ts';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const table = (id: string) => JSON.parse(read(`results/findings/${id}/table.json`)) as GainTable;
const plannedTest = JSON.parse(read('results/findings/interactions-test.json')) as InteractionTestRecord;

/** `p < 0.001` or `p = 0.019` (three decimals), as the prose writes a p */
const pText = (p: number) => (p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);

/** a pair's committed answer as the prose states it: `+17.5 [+9.3, +25.8] (97.5 %, Holm), Holm p < 0.001` */
function pairFigure(id: string, higher: string, lower: string): string {
  const c = committedComparison(table(id), higher, lower);
  if (!c || c.difference === null || !c.interval) throw new Error(`${id}: no tested pair ${higher} > ${lower}`);
  return `${signed(c.difference)} ${intervalText(c.interval)}, Holm ${pText(c.pAdjusted!)}`;
}

/** a not-resolved pair's equivalence test as the prose states it: `rules out 12 points (TOST Holm p = 0.006)` */
function equivalenceFigure(id: string, higher: string, lower: string): string {
  const c = committedComparison(table(id), higher, lower);
  if (!c?.equivalence) throw new Error(`${id}: ${higher} > ${lower} has no equivalence test`);
  return `${c.equivalence.shown ? 'rules out' : 'does not rule out'} ${c.equivalence.delta} points (TOST Holm ${pText(c.equivalence.pAdjusted)})`;
}

function interaction(id: string, plus0: string): GainInteraction {
  const x = table(id).compares.interactions?.find((i) => i.plus[0] === plus0);
  if (!x) throw new Error(`${id}: no interaction starting ${plus0}`);
  return x;
}

/** an interaction of the committed seeds: `+7.2 [−4.4, +18.9] (97.5 %, Holm), Holm p = 0.313` */
function interactionFigure(id: string, plus0: string): string {
  const x = interaction(id, plus0);
  return `${signed(x.difference!)} ${intervalText(callInterval(x)!)}, Holm ${pText(x.pAdjusted!)}`;
}

/** the planned test on fresh seeds: `+2.4 [−8.4, +13.2] (97.5 %, Holm), p = 0.608 at α 0.025` */
function plannedFigure(): string {
  const r = plannedTest.results[0];
  return `${signed(r.difference!)} ${intervalText(r.interval!)}, ${pText(r.p!)} at α ${r.alpha}`;
}

/** where the paper's value falls against the planned test's interval at its level */
function plannedPaper(): string {
  const r = plannedTest.results[0];
  const inside = r.paper! >= r.interval!.lo && r.paper! <= r.interval!.hi;
  return `${r.call}; the paper's ${signed(r.paper!)} is ${inside ? 'inside' : 'outside'}`;
}

/** a point figure with its sign, one decimal: `+5.8`, `−7.3` */
const one = (x: number) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(1)}`;

/** the equivalence test's 90 % interval of a pair (the interval whose inside a TOST at α 0.05 tests): `[−7.3, +5.8]` */
function tost90(id: string, higher: string, lower: string): string {
  const c = committedComparison(table(id), higher, lower)!;
  const se = (c.ci95!.hi - c.difference!) / tQuantile(0.975, c.df!);
  const half = tQuantile(0.95, c.df!) * se;
  return `[${one(c.difference! - half)}, ${one(c.difference! + half)}]`;
}

/** for each finding the lab leaves not resolved, how many of its planned pairs the equivalence test rules out */
function equivalenceCounts(): string {
  const ids = ['T4', 'T5', 'T1', 'T6'];
  const open = ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7'].filter((id) => table(id).direction.call === 'not resolved');
  if ([...open].sort().join() !== [...ids].sort().join()) throw new Error(`the findings not resolved are now ${open.join(', ')}`);
  return ids.map((id) => {
    const pairs = comparePairs(table(id) as unknown as ComparisonTable);
    return `${id} ${pairs.filter((p) => p.equivalence?.shown).length} of ${pairs.length}`;
  }).join(', ');
}

/** each finding's power at its planned seeds, α and δ, at the SD its compared cells realised (its first metric) */
function realisedPowers(): string {
  const plan = JSON.parse(read('results/findings/plan.json')) as PowerPlan;
  return ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7']
    .map((id) => `${id} ${realisedPower(table(id), (m) => plan.pooled[m as keyof typeof plan.pooled]?.sd ?? null)[0].realised.toFixed(2)}`)
    .join(', ');
}

/** the planned interaction's cells' gains on its fresh seeds, from the runs' summaries */
function plannedGains(): Record<string, number[]> {
  const plan = JSON.parse(read('results/findings/interactions-plan.json')) as InteractionPlan;
  const g: Record<string, number[]> = {};
  for (const r of plan.runs) {
    const s = JSON.parse(read(`${r.dir}/summary.json`)) as { start: { success: number }; final: { success: number } };
    (g[r.cell] ??= []).push(100 * (s.final.success - s.start.success));
  }
  return g;
}
function plannedContrast() {
  const g = plannedGains();
  return interactionTest([g['1.5B · ARPO'], g['1.5B · GRPO']], [g['7B · ARPO'], g['7B · GRPO']]);
}

/** the planned test's equivalence test at its own α: `rules out 12 points (TOST p = 0.023), and one-sided the paper's
 *  +11.9 (p = 0.024)` — "rules out" only where the test rejects at α */
function plannedEquivalence(): string {
  const r = plannedTest.results[0];
  const t = plannedContrast();
  const at12 = equivalenceFromEstimate(t.difference, t.se, t.df, 12);
  // one-sided: the interaction as large as the paper's (positive) or larger, rejected
  const paper = equivalenceFromEstimate(t.difference, t.se, t.df, r.paper!).upper.p;
  const word = (p: number) => (p < r.alpha ? 'rules out' : 'does not rule out');
  return `${word(at12.p)} 12 points (TOST ${pText(at12.p)}), and one-sided ${paper < r.alpha ? '' : 'not '}the paper's ${signed(r.paper!)} (${pText(paper)})`;
}

/** the planned test's realised spread and its power for the paper's value there */
function plannedSpread(): string {
  const r = plannedTest.results[0];
  const g = plannedGains();
  const sd = pooledSd(Object.values(g)).sd;
  const plan = JSON.parse(read('results/findings/interactions-plan.json')) as InteractionPlan;
  const power = twoSampleTPower({ n: r.planned, delta: r.paper!, sd, alpha: r.alpha, design: INTERACTION });
  return `${sd.toFixed(1)} against the planned ${plan.sd.toFixed(2)}, which left ${power.toFixed(2)} power for ${signed(r.paper!)}`;
}

/** an unplanned within-scale contrast of T1: its difference and Holm p across every within-scale pair of the table */
function exploratory(row: string, higher: string, lower: string): string {
  const t = table('T1');
  const ps: number[] = [];
  let at = -1;
  let difference = NaN;
  for (const r of t.rows) {
    const cells = t.cells.filter((c) => c.row === r);
    for (let i = 0; i < cells.length; i++)
      for (let j = i + 1; j < cells.length; j++) {
        const w = welchTest(cells[i].gain, cells[j].gain);
        const names = [cells[i].col, cells[j].col];
        if (r === row && names.includes(higher) && names.includes(lower)) {
          at = ps.length;
          difference = names[0] === higher ? w.difference : -w.difference;
        }
        ps.push(w.p);
      }
  }
  return `${signed(difference)}, Holm ${pText(holmAdjust(ps)[at])} across the ${ps.length} within-scale pairs`;
}

/** a cell's mean end success, one decimal: `48.5 %` */
const endOf = (id: string, label: string) => `${table(id).cells.find((c) => `${c.row} · ${c.col}` === label)!.mean.end!.toFixed(1)} %`;

const confirmatoryTest = () => JSON.parse(read('results/findings/confirmatory-test.json')) as ConfirmatoryTestRecord;
const beyondTest = () => JSON.parse(read('results/findings/beyond-test.json')) as BeyondTestRecord;
/** a plan's progress as README says it: `2 of 121 planned runs finished` */
const progress = (x: { finished: number; planned: number }) => `${x.finished} of ${x.planned} planned runs finished`;

interface Claim { docs: string[]; before: string; figure: () => string }

const README_AND_FINDINGS = ['README.md', 'docs/findings.md'];
const CLAIMS: Claim[] = [
  { docs: [...README_AND_FINDINGS, 'docs/lessons.md'], before: '0 % > 10 %: ', figure: () => pairFigure('T7', 'success · 0 %', 'success · 10 %') },
  { docs: ['docs/lessons.md'], before: "T7's seeds differ by ", figure: () => {
    const c = committedComparison(table('T7'), 'success · 0 %', 'success · 10 %')!;
    return `${signed(c.difference!)} points (Holm ${pText(c.pAdjusted!)})`;
  } },
  { docs: README_AND_FINDINGS, before: '5 % > 10 %: ', figure: () => pairFigure('T7', 'success · 5 %', 'success · 10 %') },
  { docs: [...README_AND_FINDINGS, 'docs/lessons.md'], before: '4:3:3 > hard-only: ', figure: () => pairFigure('T5', 'success · 4:3:3', 'success · hard only') },
  { docs: README_AND_FINDINGS, before: "T5's equivalence test ", figure: () => equivalenceFigure('T5', 'success · 4:3:3', 'success · hard only') },
  { docs: README_AND_FINDINGS, before: '1K > 100 in-domain: ', figure: () => pairFigure('T4', 'in-domain · 1000', 'in-domain · 100') },
  { docs: README_AND_FINDINGS, before: "T4's in-domain equivalence test ", figure: () => equivalenceFigure('T4', 'in-domain · 1000', 'in-domain · 100') },
  { docs: README_AND_FINDINGS, before: '1K > 2K on OOD: ', figure: () => pairFigure('T4', 'OOD · 1000', 'OOD · 2000') },
  { docs: README_AND_FINDINGS, before: "T4's OOD equivalence test ", figure: () => equivalenceFigure('T4', 'OOD · 1000', 'OOD · 2000') },
  { docs: README_AND_FINDINGS, before: 'the start > Sum on OOD: ', figure: () => pairFigure('T2', 'the SFT start', 'Sum · OOD') },
  { docs: README_AND_FINDINGS, before: "T2's Sum-drop equivalence test ", figure: () => equivalenceFigure('T2', 'the SFT start', 'Sum · OOD') },
  { docs: README_AND_FINDINGS, before: 'Macro > Sum on OOD: ', figure: () => pairFigure('T2', 'Macro · OOD', 'Sum · OOD') },
  { docs: README_AND_FINDINGS, before: "T2's Macro-over-Sum equivalence test ", figure: () => equivalenceFigure('T2', 'Macro · OOD', 'Sum · OOD') },
  { docs: README_AND_FINDINGS, before: 'Curriculum 3B > 1.5B: ', figure: () => pairFigure('T3', 'Curriculum · 3B', 'Curriculum · 1.5B') },
  { docs: README_AND_FINDINGS, before: 'Sum 7B > 1.5B: ', figure: () => pairFigure('T3', 'Sum · 7B', 'Sum · 1.5B') },
  { docs: README_AND_FINDINGS, before: "T3's Sum equivalence test ", figure: () => equivalenceFigure('T3', 'Sum · 7B', 'Sum · 1.5B') },
  { docs: README_AND_FINDINGS, before: '1.5B DAPO > GRPO: ', figure: () => pairFigure('T6', '1.5B · DAPO', '1.5B · GRPO') },
  { docs: README_AND_FINDINGS, before: '1.5B ARPO > GRPO: ', figure: () => pairFigure('T6', '1.5B · ARPO', '1.5B · GRPO') },
  { docs: README_AND_FINDINGS, before: '7B GRPO > DAPO: ', figure: () => pairFigure('T6', '7B · GRPO', '7B · DAPO') },
  { docs: README_AND_FINDINGS, before: '7B GRPO > ARPO: ', figure: () => pairFigure('T6', '7B · GRPO', '7B · ARPO') },
  { docs: README_AND_FINDINGS, before: '7B Sum > Macro: ', figure: () => pairFigure('T1', '7B · Sum', '7B · Macro') },
  { docs: README_AND_FINDINGS, before: '(Curriculum − Sum) at 1.5B − at 7B: ', figure: () => interactionFigure('T1', '1.5B · Curriculum') },
  { docs: README_AND_FINDINGS, before: '(Curriculum − Sum) at 3B − at 7B: ', figure: () => interactionFigure('T1', '3B · Curriculum') },
  { docs: ['docs/findings.md'], before: '(7B − 1.5B) under Sum − under Curriculum: ', figure: () => interactionFigure('T3', 'Sum · 7B') },
  { docs: ['docs/findings.md'], before: "at the test's level the interval is ", figure: () => {
    const i = plannedTest.results[0].interval!;
    const two = (x: number) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(2)}`;
    return `[${two(i.lo)}, ${two(i.hi)}]`;
  } },
  { docs: README_AND_FINDINGS, before: '(DAPO − GRPO) at 1.5B − at 7B: ', figure: () => interactionFigure('T6', '1.5B · DAPO') },
  { docs: README_AND_FINDINGS, before: '(ARPO − GRPO) at 1.5B − at 7B: ', figure: () => interactionFigure('T6', '1.5B · ARPO') },
  { docs: README_AND_FINDINGS, before: 'the planned interaction on fresh seeds: ', figure: plannedFigure },
  { docs: README_AND_FINDINGS, before: 'the planned test is ', figure: plannedPaper },
  { docs: ['README.md'], before: "the equivalence test rules out the plan's difference for ", figure: equivalenceCounts },
  { docs: README_AND_FINDINGS, before: "T4's 90 % interval: ", figure: () => tost90('T4', 'in-domain · 1000', 'in-domain · 100') },
  { docs: README_AND_FINDINGS, before: "T5's 90 % interval: ", figure: () => tost90('T5', 'success · 4:3:3', 'success · hard only') },
  { docs: ['docs/findings.md'], before: 'power at the realised SD: ', figure: realisedPowers },
  { docs: README_AND_FINDINGS, before: "the planned test's equivalence test at α 0.025: ", figure: plannedEquivalence },
  { docs: ['docs/findings.md'], before: 'the fresh seeds spread with a pooled SD of ', figure: plannedSpread },
  { docs: README_AND_FINDINGS, before: 'in final success 7B ends at ', figure: () => `${endOf('T3', 'Sum · 7B')} and 1.5B at ${endOf('T3', 'Sum · 1.5B')}` },
  { docs: README_AND_FINDINGS, before: '3B Macro > Success: ', figure: () => exploratory('3B', 'Macro', 'Success') },
  { docs: README_AND_FINDINGS, before: '7B Macro > Success: ', figure: () => exploratory('7B', 'Macro', 'Success') },
  { docs: ['docs/findings.md'], before: "rules out a change that large for T1's two (TOST Holm ", figure: () => {
    const xs = table('T1').compares.interactions!;
    return `p = ${xs.map((x) => x.equivalence!.pAdjusted.toFixed(3)).join(' and ')})`;
  } },
  { docs: ['docs/findings.md'], before: 'so it runs once, at ', figure: () => {
    const p = JSON.parse(read('results/findings/confirmatory-plan.json')) as ConfirmatoryPlan;
    return `${Math.max(...p.cells.map((c) => c.seeds))} seeds: ${p.runs.length} runs, ${p.coreHours} core-hours against a ${p.budgetCoreHours}-hour budget`;
  } },
  // the confirmatory plan's state, and T8's and T9's, from their records (test/repo/planRecords.test.ts holds each
  // record to the run folders and the plan)
  { docs: ['README.md'], before: '[test](results/findings/confirmatory-test.md)): ', figure: () => confirmatoryStatusSentence(confirmatoryTest()) },
  { docs: ['README.md'], before: 'T8, where an adaptive curriculum switches by scale: ', figure: () => progress(beyondTest().T8) },
  { docs: ['README.md'], before: 'groups without signal under Success: ', figure: () => noSignalLine(beyondTest().T8.mechanism!, 'Success') },
  { docs: ['README.md'], before: "the fixed schedule's first Macro and Success steps: ", figure: () => beyondTest().T8.fixedFirst.join(' and ') },
  { docs: ['README.md'], before: "T9, the SFT start's size: ", figure: () => progress(beyondTest().T9) },
];

/** words a test does not allow (a sentence that said more than its test, or named a figure it does not state), where
 *  they stood: each must fail this test if it is put back */
const WORDS_DOCS = ['README.md', 'docs/findings.md', 'docs/lessons.md', 'results/findings/cost-to-resolve.md'];
const FORBIDDEN: { pattern: RegExp; why: string }[] = [
  { pattern: /most of T1's and T6's pairs/, why: "T6's equivalence test rules out 12 for 2 of its 4 pairs" },
  { pattern: /no reward beats another/i, why: 'only the nine planned pairs were tested ("of the planned pairs"); unplanned contrasts are exploratory' },
  { pattern: /gain no more than GRPO/, why: 'a test that did not reject: "not detected"; the TOST rules out 12 points, not the paper\'s 6.8 and 7.4' },
  { pattern: /exploration does not help the small model/, why: 'not detected; the TOST excludes 12 points, not the paper\'s gaps' },
  { pattern: /does not gain more than 1\.5B/, why: 'a test that did not reject: "not detected"' },
  { pattern: /absent or small/, why: '"small" comes with the TOST\'s 90 % interval' },
  { pattern: /too few to rule it out/, why: 'the planned test\'s TOST at its α 0.025 rules out 12 points (p 0.023)' },
  { pattern: /for all three \(TOST/, why: "T3's interaction is T1's first: two interactions, not three" },
  { pattern: /is being built by another engineer/, why: 'stale: src/model/seedStack.ts exists' },
  { pattern: /will gain Welch tests/, why: 'stale: the tables carry Welch tests' },
  { pattern: /\| tool-failures \| −17\.7 \|/, why: 'the class table says which difference it is (end success, the bands\' seeds), beside T7\'s +17.5' },
  { pattern: /already run|runs that adds/, why: 'cost-to-resolve prices a new experiment on fresh seeds, not top-ups' },
  { pattern: /≈ GRPO at 1\.5B/, why: 'not detected; the TOST rules out 12, not equality' },
  { pattern: /no better than Sum|gain alike|the pool size does not matter/, why: 'a test that did not reject: "not detected"' },
  { pattern: /keeps no more than Sum/, why: 'a test that did not reject: "not detected", with the TOST at ±5 beside it' },
];

/** a Markdown file as running text: line breaks inside a paragraph are spaces, bold and italics marks gone */
const prose = (path: string) => read(path).replace(/\*\*|(?<![*\w])\*(?!\s)|(?<!\s)\*(?![*\w])/g, '').replace(/\s*\n\s*/g, ' ');

/** the sentence around index i of text (to the nearest full stops) */
function sentenceAt(text: string, i: number): string {
  const start = text.lastIndexOf('. ', i) + 2;
  const end = text.indexOf('. ', i);
  return text.slice(Math.max(0, start), end < 0 ? undefined : end + 1).trim();
}

describe('the figures README and docs restate from the committed records', () => {
  it.each(CLAIMS.flatMap((c) => c.docs.map((doc) => [`${doc}: “${c.before.trim()}”`, doc, c] as const)))('%s', (_, doc, c) => {
    const text = prose(doc);
    const figure = c.figure();
    const at = [...text.matchAll(new RegExp(c.before.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'))].map((m) => m.index);
    if (at.length === 0) throw new Error(`${doc} no longer says “${c.before.trim()}”: the figure the record gives there is ${figure}`);
    for (const i of at) {
      const said = text.slice(i + c.before.length, i + c.before.length + figure.length);
      if (said !== figure) throw new Error(`${doc}: “${sentenceAt(text, i)}” — the record says ${c.before.trim()} ${figure}`);
    }
  });
});

describe('the words each test allows', () => {
  it.each(WORDS_DOCS.flatMap((doc) => FORBIDDEN.map((f) => [`${doc}: not “${f.pattern.source}”`, doc, f] as const)))('%s', (_, doc, f) => {
    const text = prose(doc);
    const m = f.pattern.exec(text);
    if (m) throw new Error(`${doc}: “${sentenceAt(text, m.index)}” — ${f.why}`);
  });

  it.each(README_AND_FINDINGS)('%s: an unplanned contrast is labelled exploratory, never a call', (doc) => {
    const text = prose(doc);
    for (const m of text.matchAll(/Macro > Success/g)) {
      const around = text.slice(Math.max(0, m.index - 400), m.index + 200);
      if (!/[Ee]xploratory/.test(around)) throw new Error(`${doc}: “${sentenceAt(text, m.index)}” is not labelled exploratory`);
    }
  });
});

describe('every stated pair is the committed comparison of its table', () => {
  it.each(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7'])('%s: the record\'s pairs are comparePairs of its cells', (id) => {
    const t = table(id);
    const fresh = comparePairs(t as unknown as ComparisonTable);
    t.compares.pairs.forEach((p, i) => {
      const c: CommittedComparison = fresh[i];
      expect([c.higher, c.lower, c.call, c.seeds]).toEqual([p.higher, p.lower, p.call, p.seeds]);
      if (c.difference === null) return expect(p.difference).toBeNull();
      // the record rounds for display only (four decimals); the answer is the same
      expect(Math.abs(c.difference - p.difference!)).toBeLessThan(1e-4);
      expect(Math.abs(c.interval!.lo - p.interval!.lo)).toBeLessThan(1e-4);
      expect(Math.abs(c.interval!.hi - p.interval!.hi)).toBeLessThan(1e-4);
      expect(c.interval!.level).toBe(p.interval!.level);
      expect(Math.abs(c.pAdjusted! - p.pAdjusted!) / Math.max(1e-12, p.pAdjusted!)).toBeLessThan(1e-3);
      expect(c.equivalence?.shown ?? null).toBe(p.equivalence?.shown ?? null);
    });
  });
});
