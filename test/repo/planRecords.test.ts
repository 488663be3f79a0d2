// The records the page shows for plans whose runs are still landing — the confirmatory test of the lab's own leads
// (results/findings/confirmatory-test.json) and T8's and T9's answers (beyond-test.json) — held to the run folders and
// the plans they come from: a run that lands without its record being rewritten (`power-plan … --test`) fails here,
// naming the command. Reads the plans' finished summaries and the T8 runs' metrics; the T1 mechanism is held to
// mechanisms.json, which test/findings/mechanisms.test.ts holds to its runs. About a second.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ConfirmatoryPlan } from '../../src/findings/confirmatoryPlan.ts';
import { testConfirmatoryPlan, type ConfirmatoryTestRecord } from '../../src/findings/confirmatoryTestRecord.ts';
import { BEYOND_QUESTIONS, type BeyondTestRecord } from '../../src/findings/beyondTest.ts';
import type { MechanismsRecord } from '../../src/findings/mechanisms.ts';
import { beyondAnswersAt } from '../../src/cli/beyondRecord.ts';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const json = <T>(path: string) => JSON.parse(readFileSync(join(root, path), 'utf8')) as T;

describe('the confirmatory test the page shows', () => {
  const plan = json<ConfirmatoryPlan>('results/findings/confirmatory-plan.json');
  const record = json<ConfirmatoryTestRecord>('results/findings/confirmatory-test.json');
  const rewrite = 'rewrite it: npm run cli -- power-plan --out results/findings --confirmatory --test';

  it('counts the planned runs whose folders hold a summary, of the plan’s', () => {
    const finished = plan.runs.filter((r) => existsSync(join(root, r.dir, 'summary.json'))).length;
    expect(record.plan.runs, `the plan holds ${plan.runs.length} runs; ${rewrite}`).toBe(plan.runs.length);
    expect(record.plan.finished, `${finished} of the plan's runs have finished; ${rewrite}`).toBe(finished);
    expect([record.plan.commit, record.plan.date]).toEqual([plan.commit, plan.date]);
  });

  it("gives each lead's answer as the plan's test computes it from those runs", () => {
    const fresh = testConfirmatoryPlan(plan, (run) => {
      const f = join(root, run.dir, 'summary.json');
      if (!existsSync(f)) return undefined;
      const s = JSON.parse(readFileSync(f, 'utf8')) as { start: { success: number }; final: { success: number } };
      return 100 * (s.final.success - s.start.success);
    });
    expect(record.results, rewrite).toEqual(fresh);
  });
});

describe("T8's and T9's answers the page shows", () => {
  const record = json<BeyondTestRecord>('results/findings/beyond-test.json');
  const rewrite = 'rewrite it: npm run cli -- power-plan --out results/findings --beyond --test';
  const cwd = process.cwd();
  process.chdir(root); // the plan names its folders from the repository's root
  const fresh = (() => {
    try {
      return beyondAnswersAt('results/findings', { mechanism: false });
    } finally {
      process.chdir(cwd);
    }
  })();

  it('reads the folders the plan names, and as many of them as have finished', () => {
    expect(record.design, rewrite).toEqual(fresh.design);
    expect([record.T8.finished, record.T8.planned], rewrite).toEqual([fresh.answers.T8.finished, fresh.answers.T8.planned]);
    expect([record.T9.finished, record.T9.planned], rewrite).toEqual([fresh.answers.T9.finished, fresh.answers.T9.planned]);
    expect([record.plan.commit, record.plan.date]).toEqual([fresh.plan.commit, fresh.plan.date]);
  });

  it('gives every switch step, test and start as the analysis computes them from those runs', () => {
    const { mechanism: _m, ...t8 } = record.T8;
    const { mechanism: _f, ...fresh8 } = fresh.answers.T8;
    expect(t8, rewrite).toEqual(fresh8);
    expect(record.T9, rewrite).toEqual(fresh.answers.T9);
  });

  it("quotes each question as the plan, committed before the runs, quotes the note", () => {
    const md = readFileSync(join(root, 'results/findings/beyond-plan.md'), 'utf8');
    for (const q of Object.values(BEYOND_QUESTIONS)) expect(md).toContain(`"${q.zh}" — *${q.en}*`);
  });

  it("shows the T1 runs' groups without signal as the mechanisms record measured them", () => {
    const t1 = json<MechanismsRecord>('results/findings/mechanisms.json').findings.find((f) => f.id === 'T1')!;
    expect(record.T8.mechanism).toEqual(t1.figures[0]);
  });
});
