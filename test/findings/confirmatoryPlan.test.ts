// The confirmatory plan: the lab's own leads sized at each pair's realised SD, Holm across the plan, on fresh seeds,
// a shared run folder once, within its budget; and its test on the fresh seeds alone.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { GainTable } from '../../src/findings/findingGains.ts';
import { confirmatoryPlan, confirmatoryPlanMarkdown, type ConfirmatoryRun } from '../../src/findings/confirmatoryPlan.ts';
import {
  confirmatoryTestMarkdown,
  confirmatoryTestRecord,
  testConfirmatoryPlan,
} from '../../src/findings/confirmatoryTestRecord.ts';
import { pooledSd, twoSampleTPower } from '../../src/stats/seedStatistics.ts';

const tables = ['T1', 'T6'].map(
  (id) => JSON.parse(readFileSync(new URL(`../../results/findings/${id}/table.json`, import.meta.url), 'utf8')) as GainTable,
);
const plan = (budgetCoreHours: number) =>
  confirmatoryPlan(tables, {
    usedSeedsUpTo: 35,
    budgetCoreHours,
    delta: 12,
    date: '2026-12-07',
    commit: 'abc',
    command: 'cmd --confirmatory',
    file: 'out/confirmatory-plan.json',
    inputs: { tables: ['out/T1/table.json', 'out/T6/table.json'], runsDir: 'out/runs', runFolders: 9 },
    dirOf: (lab) => `out/runs/${lab.scale}-${lab.reward}-${lab.algorithm}-${lab.seed}`,
  });
const p15 = plan(15);
const gainsOf = (id: string, cell: string) => tables.find((t) => t.id === id)!.cells.find((c) => `${c.row} · ${c.col}` === cell)!.gain;

describe('confirmatoryPlan', () => {
  it("sizes each lead for 80 % power at its own pair's SD and Holm's first threshold across the plan, the fewest seeds", () => {
    const p = p15;
    expect(p.leads.every((x) => x.planned)).toBe(true);
    for (const x of p.leads) {
      const sd = pooledSd([gainsOf(x.finding, x.higher), gainsOf(x.finding, x.lower)]).sd;
      expect(x.committed.sd).toBeCloseTo(sd, 2);
      expect(x.alpha).toBe(0.0125);
      const power = (n: number) => twoSampleTPower({ n, delta: Math.abs(x.committed.difference), sd: x.committed.sd, alpha: 0.0125 });
      expect(power(x.seeds!)).toBeGreaterThanOrEqual(0.8);
      expect(power(x.seeds! - 1)).toBeLessThan(0.8);
    }
    // the planned pairs' family is their finding's pairs; an unplanned contrast's is every within-scale pair (18)
    const [macroSum, grpoArpo, m3] = p.leads;
    expect(macroSum).toMatchObject({ pairOfFinding: 'planned', paperDirection: 'opposite', committed: { family: 9 } });
    expect(grpoArpo).toMatchObject({ pairOfFinding: 'planned', paperDirection: 'same', committed: { family: 4 } });
    expect(m3).toMatchObject({ pairOfFinding: 'unplanned', paperDirection: null, committed: { family: 18 } });
    expect(m3.committed.pAdjusted).toBeCloseTo(0.0077, 3);
  });

  it('runs a folder two leads share once (7B Sum is 7B GRPO), at the larger seed count, seed by seed on fresh seeds', () => {
    const p = p15;
    const shared = p.cells.find((c) => c.cells.length === 2)!;
    expect(shared.cells).toEqual(['T1 7B · Sum', 'T6 7B · GRPO']);
    expect(shared.seeds).toBe(Math.max(p.leads[0].seeds!, p.leads[1].seeds!));
    expect(p.cells).toHaveLength(6);
    expect(p.seeds[0]).toBe(36);
    expect(p.runs.filter((r) => r.seed === 36)).toHaveLength(6);
    expect(p.runs.length).toBe(p.cells.reduce((s, c) => s + c.seeds, 0));
    expect(p.runs.every((r) => r.config.worldSize === 'tiny' && r.hash.includes(`seed=${r.seed}`))).toBe(true);
    expect(p.coreHours).toBeLessThanOrEqual(15);
    const md = confirmatoryPlanMarkdown(p);
    expect(md).toContain('from `out/T1/table.json` and `out/T6/table.json` and the 9 run folders of `out/runs`');
    expect(md).toContain('require("./out/confirmatory-plan.json")');
    expect(md).toContain('`cmd --confirmatory --test`');
    expect(md).not.toMatch(/results\/findings/);
  });

  it('drops, before any run, the lead whose leaving saves the most when the plan is past its budget, resizing the rest', () => {
    const p = plan(8);
    expect(p.coreHours).toBeLessThanOrEqual(8);
    const dropped = p.leads.filter((x) => !x.planned);
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped[0].left).toMatch(/past the 8 core-hour budget/);
    const kept = p.leads.filter((x) => x.planned);
    expect(kept.every((x) => x.alpha === 0.05 / kept.length)).toBe(true);
    expect(confirmatoryPlanMarkdown(plan(0.1))).toMatch(/No lead fits the budget/);
  });
});

describe('testConfirmatoryPlan', () => {
  const p = p15;
  // 7B Macro gains 10 more than everything else; a little spread by seed
  const gain = (r: ConfirmatoryRun) => (r.cells.includes('T1 7B · Macro') ? 15 : 5) + ((r.seed * 7) % 5) - 2;
  it('tests each lead on its own fresh seeds alone, Holm across the plan, with the words its test allows', () => {
    const res = testConfirmatoryPlan(p, gain);
    expect(res.map((r) => r.call)).toEqual(['confirmed', 'not detected', 'not detected', 'confirmed']);
    expect(res[0].finished).toEqual([p.leads[0].seeds, p.leads[0].seeds]); // the shared folder's later seeds stay out
    expect(res[1].equivalence?.shown).toBe(true);
    const md = confirmatoryTestMarkdown(confirmatoryTestRecord(p, res, { date: 'd', commit: 'c', command: 'x', finished: p.runs.length }));
    expect(md).toContain('not detected on fresh seeds');
    expect(md).toContain('rules out ±12');
    expect(md).not.toContain('Interim');
  });

  it('is interim, with no call, while a planned run has not finished', () => {
    const res = testConfirmatoryPlan(p, (r) => (r.seed < 40 ? gain(r) : undefined));
    expect(res.every((r) => r.call === 'interim')).toBe(true);
    expect(confirmatoryTestMarkdown(confirmatoryTestRecord(p, res, { date: 'd', commit: 'c', command: 'x', finished: 20 }))).toContain('Interim');
  });
});
