// The interactions' power plan: from the committed tables, sized for the paper's interactions at the
// pooled SD, within the budget, on fresh seeds above every seed used.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { GainTable } from '../../src/findings/findingGains.ts';
import { interactionPlan, interactionPlanMarkdown, testInteractionPlan } from '../../src/findings/interactionPlan.ts';
import { interactionTestMarkdown, interactionTestRecord, plannedTestSentence } from '../../src/findings/interactionTestRecord.ts';
import { INTERACTION, twoSampleTPower } from '../../src/stats/seedStatistics.ts';

const tables = ['T1', 'T3', 'T6'].map((id) => JSON.parse(readFileSync(new URL(`../../results/findings/${id}/table.json`, import.meta.url), 'utf8')) as GainTable);
const plan = (budgetCoreHours: number, usedSeedsUpTo = 15) =>
  interactionPlan(tables, { sd: 8.45, usedSeedsUpTo, budgetCoreHours, date: '2026-12-04', commit: 'abc', dirOf: (lab) => `runs/${lab.scale}-${lab.algorithm}-${lab.seed}` });

describe('interactionPlan', () => {
  it('sizes each interaction with a paper figure for 80 % power at Holm\'s first threshold, the fewest seeds that reach it', () => {
    const p = plan(10);
    const arpo = p.interactions.find((x) => x.interaction.includes('ARPO'))!;
    expect(arpo.alpha).toBe(0.025);
    const power = (n: number) => twoSampleTPower({ n, delta: 11.9, sd: 8.45, alpha: 0.025, design: INTERACTION });
    expect(power(arpo.seeds!)).toBeGreaterThanOrEqual(0.8);
    expect(power(arpo.seeds! - 1)).toBeLessThan(0.8);
    // T1's and T3's have no paper figure for every cell: nothing to size
    expect(p.interactions.filter((x) => x.finding !== 'T6').every((x) => x.seeds === null && !x.planned)).toBe(true);
  });

  it('plans what fits the budget, cheapest first, on fresh seeds above every seed used, balanced seed by seed', () => {
    const p = plan(10);
    expect(p.coreHours).toBeLessThanOrEqual(10);
    expect(p.interactions.filter((x) => x.planned).map((x) => x.interaction)).toEqual(['(1.5B · ARPO − 1.5B · GRPO) − (7B · ARPO − 7B · GRPO)']);
    expect(p.seeds[0]).toBe(16);
    expect(p.runs).toHaveLength(4 * p.seeds.length);
    expect(p.runs.slice(0, 4).map((r) => r.seed)).toEqual([16, 16, 16, 16]);
    expect(p.runs[0].config).toMatchObject({ algorithm: 'arpo', scale: 's', reward: 'sum', steps: 40, seed: 16 });
    expect(p.runs[0].dir).toBe('runs/s-arpo-16');
    // a larger budget takes both T6 interactions, their shared GRPO cells once
    const both = plan(20);
    expect(both.interactions.filter((x) => x.planned)).toHaveLength(2);
    expect(new Set(both.runs.map((r) => r.cell)).size).toBe(6);
    // none fits a tiny one
    expect(plan(1).runs).toEqual([]);
    expect(interactionPlanMarkdown(plan(1), 'cmd')).toMatch(/No interaction fits the budget/);
  });

  it('records the world its runs train (their starts\'), in each run\'s config and hash, the folder named as the sweep names it', () => {
    const p = plan(10);
    expect(tables[0].world).toEqual({ size: 'tiny', seed: 1 });
    expect(p.world).toEqual({ size: 'tiny', seed: 1 });
    expect(p.runs.every((r) => r.config.worldSize === 'tiny' && r.hash.includes('worldSize=tiny'))).toBe(true);
    expect(p.runs[0].dir).toBe('runs/s-arpo-16'); // dirOf got the config as asked (the sweep's name leaves the world out)
  });

  it('the committed plan names the world its 80 runs trained, as their summaries record it', () => {
    const committed = JSON.parse(readFileSync(new URL('../../results/findings/interactions-plan.json', import.meta.url), 'utf8')) as ReturnType<typeof plan>;
    expect(committed.runs).toHaveLength(80);
    for (const r of committed.runs) {
      const s = JSON.parse(readFileSync(new URL(`../../${r.dir}/summary.json`, import.meta.url), 'utf8')) as { lab: { worldSize: string }; hash: string };
      expect(r.config.worldSize, r.dir).toBe(s.lab.worldSize);
      expect(r.hash, r.dir).toBe(s.hash);
    }
    expect(committed.world).toEqual({ size: 'tiny', seed: 1 });
  });

  it('refuses a bad SD or seed count', () => {
    expect(() => interactionPlan(tables, { sd: 0, usedSeedsUpTo: 15, budgetCoreHours: 10, date: '', commit: '', dirOf: () => '' })).toThrow(/SD must be positive/);
    expect(() => plan(10, 0)).toThrow(/usedSeedsUpTo/);
  });
});

describe('testInteractionPlan', () => {
  const p = plan(10);
  // ARPO gains 10 points more than GRPO at 1.5B and the same at 7B, with a little seed-to-seed spread
  const gain = (r: { cell: string; seed: number }) => (r.cell === '1.5B · ARPO' ? 15 : 5) + ((r.seed * 7) % 5) - 2;
  it('tests each planned interaction on its fresh seeds alone, at the α it was sized for, once every run has finished', () => {
    const [t] = testInteractionPlan(p, gain);
    expect(t).toMatchObject({ finding: 'T6', finished: [20, 20, 20, 20], planned: 20, alpha: 0.025, call: 'supports' });
    expect(t.difference).toBeCloseTo(10, 5);
  });

  it('is interim while a planned run has not finished, and has no figures under two seeds a cell', () => {
    const [half] = testInteractionPlan(p, (r) => (r.seed < 20 ? gain(r) : undefined));
    expect(half.call).toBe('interim');
    expect(half.difference).not.toBeNull();
    const [none] = testInteractionPlan(p, () => undefined);
    expect(none).toMatchObject({ call: 'interim', difference: null, finished: [0, 0, 0, 0] });
  });

  it("states each cell's fresh-seed mean and SD, and the simple differences the contrast is made of", () => {
    const [t] = testInteractionPlan(p, gain);
    expect(t.cells.map((c) => c.cell)).toEqual(['1.5B · ARPO', '1.5B · GRPO', '7B · ARPO', '7B · GRPO']);
    expect(t.cells.every((c) => c.n === 20 && c.sd! > 0)).toBe(true);
    expect(t.cells[0].mean! - t.cells[1].mean!).toBeCloseTo(10, 1);
    expect(plannedTestSentence(t)).toMatch(/^ARPO − GRPO gains \+10\.0 points at 1\.5B and 0\.0 at 7B \(20 fresh seeds a cell\); the difference, \+10\.0 \[.*\] .* p < 0\.001 at α 0\.025\) — supports; the interval excludes the paper's \+11\.9\. By the equivalence test at α 0\.025, it (rules out|does not rule out) ±12 points \(TOST p [\d.e-]+\) and, one-sided, (rules out|does not rule out) the paper's \+11\.9 \(p [\d.e-]+\)\. The fresh seeds spread with a pooled SD of [\d.]+ points against the plan's 8\.45, which left [\d.]+ power for the paper's \+11\.9\.$/);
    // a difference of 10 with a small spread: not within ±12 by TOST, and short of +11.9 one-sided
    expect(t.equivalence).toMatchObject({ delta: 12, paper: { rulesOut: true } });
    expect(t.realised!.sd).toBeGreaterThan(0);
  });
});

describe('the committed record of the planned test', () => {
  const p = plan(10);
  const gain = (r: { cell: string; seed: number }) => (r.cell === '1.5B · ARPO' ? 15 : 5) + ((r.seed * 7) % 5) - 2;
  it('says how many planned runs had finished, and an interim one makes no call and no comparison with the paper', () => {
    const results = testInteractionPlan(p, (r) => (r.seed < 26 ? gain(r) : undefined));
    const record = interactionTestRecord(p, results, { date: '2026-12-05', commit: 'def', command: 'cmd', finished: 40 });
    expect(record.plan).toMatchObject({ firstSeed: 16, lastSeed: 35, runs: 80, finished: 40, commit: 'abc' });
    const md = interactionTestMarkdown(record);
    expect(md).toMatch(/from 40 of the 80 runs/);
    expect(md).toMatch(/\*\*Interim:\*\* 40 planned runs have not finished/);
    expect(plannedTestSentence(results[0])).toMatch(/10\/10\/10\/10 of 20 fresh seeds a cell.*interim: no call until every planned run has finished\.$/);
    expect(plannedTestSentence(results[0])).not.toMatch(/paper/);
    const done = interactionTestMarkdown(interactionTestRecord(p, testInteractionPlan(p, gain), { date: '', commit: 'def', command: 'cmd', finished: 80 }));
    expect(done).not.toMatch(/Interim/);
    expect(done).toMatch(/\| T6 \| .* \| supports \|/);
  });
});
