// The findings' power plan from tables: the seeds each finding needs, which runs get them, what it costs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LabConfig } from '../../src/lab/config.ts';
import { gainTable, type GainTable, type SeedResult } from '../../src/findings/findingGains.ts';
import { FINDINGS, findingById } from '../../src/findings/findings.ts';
import { plannedArms, plannedSeeds, planProgress, powerPlan, powerPlanMarkdown, type PlanChoices, type PowerPlan } from '../../src/findings/powerPlan.ts';
import { seedsForPower } from '../../src/stats/seedStatistics.ts';

const CHOICES: PlanChoices = { delta: { success: 12, ood: 5 }, power: 0.8, alpha: 0.05, budgetCoreHours: 30, order: ['T5', 'T7', 'T4', 'T1', 'T2', 'T3', 'T6'] };
const meta = { size: 'standard', command: 'x', commit: 'abc', date: '2026-01-01', backend: 'wasm', common: { steps: 40, evalEvery: 40, evalQueries: 300, evalToolQa: 100 } };
const fig = (success: number, ood: number) => ({ success, delivery: 1, csMicro: 1, hardMicro: 1, ood, queries: 300 });

/** every finding's table over seeds 1–3, each run's gain spread ±`spread` points around 10 by seed */
function tables(spread: number, ids?: readonly string[]): GainTable[] {
  const lookup = (lab: LabConfig): SeedResult => ({ start: fig(0.2, 0.5), final: fig(0.3 + (spread / 100) * (lab.seed - 2), 0.5 + (spread / 300) * (lab.seed - 2)),
    wallSeconds: 300, cpuSeconds: lab.scale === 'l' ? 600 : 240, where: JSON.stringify(lab) });
  return FINDINGS.filter((f) => !ids || ids.includes(f.id)).map((f) => gainTable(f, lookup, [1, 2, 3], meta));
}

describe('plannedArms', () => {
  it('gives more seeds only to the cells a pair compares, and to every null control', () => {
    const t6 = plannedArms(findingById('T6'), {});
    expect(t6.filter((a) => !a.nullControl).map((a) => `${a.lab.scale} ${a.lab.algorithm}`)).toEqual(['s grpo', 's dapo', 's arpo', 'l grpo', 'l dapo', 'l arpo']);
    expect(t6.filter((a) => a.nullControl).map((a) => a.lab.scale)).toEqual(['s', 'm', 'l']);
    // T4 compares in-domain 1K/100 and OOD 1K/2K: three runs (1K read twice), not the in-domain 2K twice
    expect(plannedArms(findingById('T4'), {}).filter((a) => !a.nullControl).map((a) => a.lab.trainSize)).toEqual([100, 1000, 2000]);
  });
});

describe('powerPlan', () => {
  it('pools the per-seed spread, plans each finding at Holm\'s first threshold and each arm at the largest of its findings', () => {
    const plan = powerPlan(tables(10), { ...CHOICES, budgetCoreHours: 1000 }, { date: '2026-01-01', commit: 'abc' });
    // every cell's gains are 10 ± 10 by seed: SD exactly 10
    expect(plan.pooled.success.sd).toBeCloseTo(10, 6);
    const t1 = plan.findings.find((f) => f.id === 'T1')!;
    expect(t1.holmFirstAlpha).toBeCloseTo(0.05 / 9, 12);
    expect(t1.seeds).toBe(seedsForPower({ delta: 12, sd: 10, alpha: 0.05 / 9 }));
    const t5 = plan.findings.find((f) => f.id === 'T5')!;
    expect(t5.seeds).toBe(seedsForPower({ delta: 12, sd: 10, alpha: 0.05 }));
    expect(t5.seeds).toBeLessThan(t1.seeds);
    // m Curriculum is read by T5, T7, T4, T1, T3: it runs to T1's seeds, and goes first
    const mCurriculum = plan.arms[0];
    expect(mCurriculum.hash).toMatch(/reward=curriculum/);
    expect(mCurriculum.planned).toBe(t1.seeds);
    expect(mCurriculum.newRuns).toBe(t1.seeds - 3);
    expect(mCurriculum.coreMinutesPerRun).toBe(4);
    // T6's 3B DAPO and ARPO cells are shown, not compared: no arm
    expect(plan.arms.some((a) => /scale=m|algorithm=dapo/.test(a.hash) && !/scale=[sl]/.test(a.hash) && /algorithm/.test(a.hash))).toBe(false);
    expect(plan.newCoreHours).toBeCloseTo(plan.arms.reduce((s, a) => s + a.newRuns * a.coreMinutesPerRun, 0) / 60, 1);
    expect(plan.cut).toEqual([]);
    expect(plannedSeeds(plan, 'T5')).toEqual(Array.from({ length: t5.seeds }, (_, i) => i + 1));
    expect(powerPlanMarkdown(plan, { delta: 'd', budget: 'b', order: 'o' })).toMatch(/\| T1 \| 9 \| 0\.0056 \|/);
  });

  it('records the world its runs train, the tables\' (null where they differ)', () => {
    const world = { size: 'tiny', seed: 1 };
    // two findings keep it cheap
    const ts = tables(10, ['T5', 'T7']).map((t) => ({ ...t, world }));
    const plan = powerPlan(ts, CHOICES, { date: '2026-01-01', commit: 'abc' });
    expect(plan.world).toEqual(world);
    expect(powerPlanMarkdown(plan, { delta: '', budget: '', order: '' })).toContain('Its runs train the tiny world (seed 1)');
    expect(powerPlan(ts.map((t, i) => (i === 0 ? { ...t, world: { size: 'small', seed: 1 } } : t)), CHOICES, { date: '2026-01-01', commit: 'abc' }).world).toBeNull();
  });

  it('names the tables it read and the command that made it, not fixed ones', () => {
    const plan = powerPlan(tables(10, ['T5', 'T7']), CHOICES, { date: '2026-01-01', commit: 'abc' });
    const md = powerPlanMarkdown({ ...plan, made: { command: 'npm run cli -- power-plan --out /tmp/x --force', tables: ['/tmp/x/T5/table.json', '/tmp/x/T7/table.json'] } }, { delta: '', budget: '', order: '' });
    expect(md).toContain('from the standard tables `/tmp/x/T5/table.json`, `/tmp/x/T7/table.json` (');
    expect(md).toContain('Command: `npm run cli -- power-plan --out /tmp/x --force`');
    expect(md).not.toMatch(/three-seed|results\/findings/);
  });

  it('says when it is over budget, before any run', () => {
    const plan = powerPlan(tables(25), { ...CHOICES, budgetCoreHours: 1 }, { date: '2026-01-01', commit: 'abc' });
    expect(plan.cut[0]).toMatch(/over the budget of 1/);
  });

  it('the committed plan is the one its committed tables and choices give (a plan is not edited by hand)', () => {
    const committed = JSON.parse(readFileSync('results/findings/plan.json', 'utf8'));
    expect(committed.findings.map((f: { id: string; seeds: number }) => [f.id, f.seeds])).toEqual([['T5', 9], ['T7', 11], ['T4', 11], ['T1', 15], ['T2', 7], ['T3', 11], ['T6', 13]]);
    expect(committed.pooled.success.df).toBe(46);
    expect(committed.newRuns).toBe(266);
  });
});

describe('planProgress (sweep --standard --status)', () => {
  const plan = JSON.parse(readFileSync('results/findings/plan.json', 'utf8')) as PowerPlan;
  const common = { steps: 40, queriesPerStep: 4, groupSize: 8, evalEvery: 40, evalQueries: 300, evalToolQa: 100, learningRate: 1e-4 };
  const plannedRuns = plan.arms.reduce((t, a) => t + a.planned, 0);
  const plannedMinutes = plan.arms.reduce((t, a) => t + a.planned * a.coreMinutesPerRun, 0);

  it('with nothing run, every planned run is left once: the plan\'s own arms add up to the same runs and minutes', () => {
    const p = planProgress(plan, common, () => 'none');
    expect(p.findings.map((f) => [f.id, f.planned])).toEqual([['T5', 27], ['T7', 44], ['T4', 44], ['T1', 225], ['T2', 21], ['T3', 77], ['T6', 117]]);
    expect(p.runsLeft).toBe(plannedRuns);
    expect(p.coreMinutesLeft).toBeCloseTo(plannedMinutes, 6);
    // a finding's own cost counts its shared runs: T1 alone costs more than its share of the plan
    expect(p.findings.find((f) => f.id === 'T1')!.coreMinutesLeft).toBeLessThan(p.coreMinutesLeft);
  });

  it('finished runs leave a finding complete; a saved mid-run state is counted and still left', () => {
    const p = planProgress(plan, common, (lab) => (lab.seed <= 7 ? 'finished' : lab.seed === 8 ? 'saved' : 'none'));
    const row = (id: string) => p.findings.find((f) => f.id === id)!;
    expect(row('T2')).toMatchObject({ seeds: 7, finished: 21, saved: 0, coreMinutesLeft: 0 }); // T2 plans seeds 1…7
    expect(row('T1')).toMatchObject({ finished: 15 * 7, saved: 15 });
    expect(row('T1').planned - row('T1').finished).toBe(15 * 8);
    expect(p.runsLeft).toBe(plan.arms.reduce((t, a) => t + Math.max(0, a.planned - 7), 0));
  });
});
