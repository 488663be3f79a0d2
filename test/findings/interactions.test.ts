// The findings' scale × choice interactions: declared from the paper's claims in findings.ts, tested
// by gainTable on the cells' per-seed gains, and committed in results/findings/T*/table.json. The committed ones
// are recomputed here from the table's own per-seed gains (scripts/interaction_crosscheck.py recomputes them
// from the run summaries with SciPy).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LabConfig } from '../../src/lab/config.ts';
import { gainTable, type GainTable, type SeedResult } from '../../src/findings/findingGains.ts';
import { findingById, paperInteraction } from '../../src/findings/findings.ts';
import { costToResolveInteractions } from '../../src/findings/resolveCost.ts';
import { testInteractions } from '../../src/stats/seedStatistics.ts';

const committed = (id: string) => JSON.parse(readFileSync(new URL(`../../results/findings/${id}/table.json`, import.meta.url), 'utf8')) as GainTable;

describe('the declared interactions', () => {
  it('T1 and T6 state two each and T3 one, with the paper\'s figure where it reports all four cells', () => {
    expect(findingById('T1').compares.interactions).toHaveLength(2);
    expect(findingById('T3').compares.interactions).toHaveLength(1);
    const t6 = findingById('T6');
    // (36.9 − 30.1) − (58.4 − 62.8) and (37.5 − 30.1) − (58.3 − 62.8)
    expect(t6.compares.interactions!.map((x) => paperInteraction(t6, x))).toEqual([11.2, 11.9]);
    const t1 = findingById('T1');
    expect(paperInteraction(t1, t1.compares.interactions![0])).toBeNull(); // no 7B Curriculum figure in the paper
  });
});

describe('the committed tables', () => {
  it.each(['T1', 'T3', 'T6'])('%s: every interaction recomputes from the table\'s own per-seed gains', (id) => {
    const t = committed(id);
    const xs = t.compares.interactions!;
    expect(xs.length).toBeGreaterThan(0);
    const gain = (label: string) => t.cells.find((c) => `${c.row} · ${c.col}` === label)!.gain;
    const tests = testInteractions(xs.map((x) => ({ plus: [gain(x.plus[0]), gain(x.plus[1])], minus: [gain(x.minus[0]), gain(x.minus[1])] })), { complete: true });
    xs.forEach((x, i) => {
      const r = tests[i]!;
      expect(x.difference).toBeCloseTo(r.difference, 2);
      expect(x.ci95!.lo).toBeCloseTo(r.lo, 2);
      expect(x.ci95!.hi).toBeCloseTo(r.hi, 2);
      expect(x.p).toBeCloseTo(r.p, 3);
      expect(x.pAdjusted).toBeCloseTo(r.pAdjusted, 3);
      expect(x.call).toBe(t.direction.call === 'interim' ? 'interim' : r.call);
      expect(x.paper).toBe(paperInteraction(findingById(id), findingById(id).compares.interactions![i]));
    });
  });
});

/** a hand-made T6 grid: every run starts at 20 %; `ends[scale][algorithm]` the ends of seeds 1–4 */
function t6(ends: Record<string, Record<string, number[]>>, seeds = [1, 2, 3, 4]) {
  const lookup = (lab: LabConfig): SeedResult | undefined => {
    const end = lab.advantages === 'shuffled' ? 0.2 : ends[lab.scale]?.[lab.algorithm]?.[lab.seed - 1];
    return end === undefined ? undefined : { start: { success: 0.2, ood: 0.5, queries: 300 } as SeedResult['start'], final: { success: end, ood: 0.5, queries: 300 } as SeedResult['final'],
      wallSeconds: 60, cpuSeconds: 120, where: `${lab.scale}-${lab.algorithm}-${lab.advantages}-${lab.seed}` };
  };
  return gainTable(findingById('T6'), lookup, seeds, { size: 'standard', command: 'test', commit: 'abc', date: '2026-01-01', backend: 'wasm', common: {} });
}

describe('gainTable with interactions', () => {
  const flat = [0.3, 0.31, 0.29, 0.3];
  const up = [0.5, 0.51, 0.49, 0.5];
  it('supports the claim when exploration gains clearly more than GRPO at 1.5B and not at 7B, and prices it', () => {
    const t = t6({ s: { grpo: flat, dapo: up, arpo: up }, m: { grpo: flat, dapo: flat, arpo: flat }, l: { grpo: flat, dapo: flat, arpo: flat } });
    expect(t.compares.interactions!.map((x) => x.call)).toEqual(['supports', 'supports']);
    expect(t.compares.interactions![0]).toMatchObject({ plus: ['1.5B · DAPO', '1.5B · GRPO'], minus: ['7B · DAPO', '7B · GRPO'], seeds: [4, 4, 4, 4], difference: 20, paper: 11.2 });
    const [cost] = costToResolveInteractions(t);
    expect(cost.excludesPaper).toBe(true); // [+19, +21] leaves out +11.2
    expect(cost.alpha).toBe(0.025);
    expect(cost.forPaper!.seeds).toBe(2); // a spread of 0.8 points: two seeds a cell are plenty
    expect(cost.forPaper!.coreHours).toBeCloseTo(Math.round(10 * 2 * 4 * 2 / 60) / 10, 5); // 2 seeds × 4 cells × 2 core-min
  });

  it('contradicts it when the difference grows with scale instead, and is interim while a cell lacks seeds', () => {
    const t = t6({ s: { grpo: flat, dapo: flat, arpo: flat }, m: { grpo: flat, dapo: flat, arpo: flat }, l: { grpo: flat, dapo: up, arpo: up } });
    expect(t.compares.interactions!.map((x) => x.call)).toEqual(['contradicts', 'contradicts']);
    const half = t6({ s: { grpo: flat, dapo: up, arpo: up }, m: { grpo: flat, dapo: flat, arpo: flat }, l: { grpo: flat, dapo: flat, arpo: flat.slice(0, 2) } });
    expect(half.compares.interactions!.map((x) => x.call)).toEqual(['interim', 'interim']);
  });
});
