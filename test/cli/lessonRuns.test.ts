// `lessons --run` makes only runs of the findings' power plan: the lessons' bands grow from the same
// folders the findings' tests read, and no lesson adds a seed a finding did not plan.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lessonRuns } from '../../src/cli/commands/lessons.ts';
import { BAND_SEEDS } from '../../src/lessons/lessons.ts';
import { lessonSettings } from '../../src/lessons/lessonReference.ts';
import type { PowerPlan } from '../../src/findings/powerPlan.ts';

const plan = JSON.parse(readFileSync('results/findings/plan.json', 'utf8')) as PowerPlan;

describe('lessons --run', () => {
  it('runs seeds 1…BAND_SEEDS of every lesson setting, seed by seed, each a run of the committed power plan', () => {
    const runs = lessonRuns(plan);
    const settings = lessonSettings().length;
    expect(runs).toHaveLength(settings * BAND_SEEDS);
    expect(new Set(runs.map(([name]) => name)).size).toBe(runs.length);
    expect(runs.slice(0, settings).every(([, lab]) => lab.seed === 1)).toBe(true);
    expect(runs.at(-1)![1].seed).toBe(BAND_SEEDS);
  });

  it('refuses to run without a plan, and a seed the plan does not hold', () => {
    expect(() => lessonRuns(null)).toThrow(/power plan/);
    const t5Only: PowerPlan = { ...plan, findings: plan.findings.map((f) => ({ ...f, seeds: f.id === 'T5' ? f.seeds : 3 })) };
    expect(() => lessonRuns(t5Only)).toThrow(/not a run of the findings' power plan/);
  });
});
