// The figures README.md and docs/*.md restate from the committed findings records, checked against the records:
// each claim names where a figure stands (the words just before it) and computes the figure from the record —
// a pair's answer by the one committed comparison (src/findings/committedComparison.ts) from the table's cells,
// an interaction and the planned test from their records. When a record is re-made and a sentence no longer
// agrees, the test names the file and quotes the sentence. A sentence that moves or is reworded must keep its
// words before the figure, or the claim here moves with it. Reads files only: well under a second.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { committedComparison, comparePairs, type ComparisonTable, type CommittedComparison } from '../../src/findings/committedComparison.ts';
import { callInterval, signed, type GainInteraction, type GainTable } from '../../src/findings/findingGains.ts';
import { intervalText } from '../../src/findings/gainText.ts';
import type { InteractionTestRecord } from '../../src/findings/interactionTestRecord.ts';

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
