// `npm run cli -- power-plan`: the findings' power plan (src/findings/powerPlan.ts) from the committed standard
// tables, written once as DIR/plan.json and DIR/plan.md before any of its runs. `sweep --standard --out DIR`
// then reads it: each finding runs, and is tested at, exactly its planned seeds.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagText, rejectUnknownFlags } from '../envFlags.ts';
import { provenance } from '../../node/provenance.ts';
import { readGainTableFiles } from '../gainTableFiles.ts';
import {
  POWER_PLAN_FORMAT,
  powerPlan,
  powerPlanMarkdown,
  type PlanChoices,
  type PowerPlan,
} from '../../findings/powerPlan.ts';
import {
  costToResolve,
  costToResolveMarkdown,
  realisedPower,
  realisedPowerMarkdown,
} from '../../findings/resolveCost.ts';
import {
  INTERACTION_PLAN_FORMAT,
  interactionPlan,
  interactionPlanMarkdown,
  testInteractionPlan,
  type InteractionPlan,
} from '../../findings/interactionPlan.ts';
import { runDirName } from '../runDir.ts';
import {
  CONFIRMATORY_PLAN_FORMAT,
  confirmatoryPlan,
  confirmatoryPlanMarkdown,
  LAB_LEADS,
  type ConfirmatoryPlan,
} from '../../findings/confirmatoryPlan.ts';
import {
  confirmatoryTestMarkdown,
  confirmatoryTestRecord,
  testConfirmatoryPlan,
} from '../../findings/confirmatoryTestRecord.ts';
import { interactionTestMarkdown, interactionTestRecord } from '../../findings/interactionTestRecord.ts';
import { writeAtomic } from '../../node/atomicWrite.ts';
import { writeBeyondTest } from '../beyondRecord.ts';
import { flagPath } from '../flagPath.ts';

/** the interactions' plan: the most it may spend */
export const INTERACTION_BUDGET_CORE_HOURS = 10;
/** the confirmatory plan: the most it may spend */
export const CONFIRMATORY_BUDGET_CORE_HOURS = 15;

/** the plan's choices; why each, in WHY (written into plan.md) */
export const PLAN_CHOICES: PlanChoices = {
  delta: { success: 12, ood: 5 },
  power: 0.8,
  alpha: 0.05,
  budgetCoreHours: 30,
  order: ['T5', 'T7', 'T4', 'T1', 'T2', 'T3', 'T6'],
};

const WHY = {
  delta:
    "Twelve points of success is about one and a half seed SDs: a difference a reader sees in most pairs of runs (P(A beats B) ≈ 0.86 for normal gains), and the size of the smallest effect the paper reports among its claims that is not a near-tie (T4, 100 → 1K queries: +12.4). Smaller paper differences (T1 at 1.5B, Curriculum 34.9 vs Sum 33.1; T6 at 7B, GRPO 62.8 vs DAPO 58.4) would need 40–400 seeds a cell at this spread: no CPU budget reaches them, and the plan says so rather than pretend. Five points of OOD accuracy is the paper's T2 effect (41.9 → 36.7 with Sum); OOD gains spread a third as much as success gains, so five points costs no more seeds.",
  budget: "The budget set for the plan's new runs. The 81 committed runs took 7.7 core-hours.",
  order:
    "The single-scale findings first, cheapest to complete first (T5, T7, T4: all at m), so that whole findings reach their call as early as possible; then the reward × scale grid (T1, which holds every cell of T2 and T3), then T6's DAPO and ARPO cells at s and l. Within a finding `sweep --standard` goes seed by seed (one seed of every cell and null control before the next), so an interrupted finding is balanced across its cells. Two runs at a time in the background, each committed as it lands.",
};

export const powerPlanCommand: Command = {
  name: 'power-plan',
  summary: "the findings' power plan: the seeds each finding needs, fixed before its runs",
  help: `usage: npm run cli -- power-plan --out DIR [--force]
       npm run cli -- power-plan --out DIR --cost-to-resolve
       npm run cli -- power-plan --out DIR --interactions [--force]
       npm run cli -- power-plan --out DIR --interactions --test
       npm run cli -- power-plan --out DIR --confirmatory [--force]
       npm run cli -- power-plan --out DIR --confirmatory --test
       npm run cli -- power-plan --out DIR --beyond --test

  Reads DIR/T*/table.json (the standard tables), pools the per-seed spread of a cell's gain, and writes
  DIR/plan.json and DIR/plan.md: the seeds each finding needs for ${Math.round(100 * PLAN_CHOICES.power)} % power at a difference of
  ${PLAN_CHOICES.delta.success} points (success) under Holm, the runs it adds and their measured cost, and their order.
  Refuses to overwrite a plan (a plan is made once, before its runs) unless --force.

  --cost-to-resolve: leaves the plan alone and writes DIR/cost-to-resolve.md — for every pair a called
  finding leaves not resolved, the seeds a cell and core-hours that would test the paper's gap, and the
  lab's own difference, at the spread the finished seeds measured (src/findings/resolveCost.ts).

  --interactions: leaves the plan alone and writes DIR/interactions-plan.json and .md, once, before its runs
  (src/findings/interactionPlan.ts): for each scale × choice interaction the tables state, the fresh seeds a
  cell for ${Math.round(100 * PLAN_CHOICES.power)} % power to detect the paper's interaction at Holm's first threshold and the plan's pooled SD
  (DIR/plan.json), their core-hours, and the runs of those that fit ${INTERACTION_BUDGET_CORE_HOURS} core-hours, on seeds above every
  seed in DIR/runs. Refuses to overwrite it unless --force. With --test: runs nothing; tests each planned
  interaction on its fresh seeds alone (interim, with no call, until every planned run has a summary.json),
  prints it and writes DIR/interactions-test.json and .md, which the page shows under the finding.

  --confirmatory: leaves the plan alone and writes DIR/confirmatory-plan.json and .md, once, before its runs
  (src/findings/confirmatoryPlan.ts): the lab's own leads (T1 7B Macro vs Sum, T6 7B GRPO vs ARPO, T1 3B and
  7B Macro vs Success), each a new two-cell experiment on seeds above every seed in DIR/runs, sized for
  ${Math.round(100 * PLAN_CHOICES.power)} % power to detect the lab's committed difference at that pair's own realised SD under Holm across the
  plan, within ${CONFIRMATORY_BUDGET_CORE_HOURS} core-hours. Refuses to overwrite it unless --force. With --test: runs nothing; tests each
  lead on its fresh seeds alone (Welch, Holm across the plan, TOST at ±${PLAN_CHOICES.delta.success}; interim, with no call, until every
  planned run has a summary.json), prints it and writes DIR/confirmatory-test.json and .md.

  --beyond --test: runs nothing; answers T8 and T9 from DIR/beyond-plan.json (made before their runs by
  scripts/beyondPlans.ts) and whichever of its runs have a summary.json (src/findings/beyondTest.ts): where the
  adaptive curriculum switches at each scale (median step, order-statistic 95 % interval, runs that never switch
  counted apart), adaptive − fixed by scale and the scale × schedule interactions, each SFT start's success
  (Wilson) and the RL gain by SFT size (Welch, Holm; interim, with no call, until every planned run has
  finished), with the T1 runs' groups without signal beside them; prints it and writes DIR/beyond-test.json
  and .md, which the page shows under "Beyond the paper".

  --allow-dirty: write a record into the repository from code that differs from HEAD; the record lists each
  differing file and its SHA-256 (without it such a write is refused: commit first).`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(
      flags,
      positional,
      ['out', 'force', 'cost-to-resolve', 'interactions', 'confirmatory', 'beyond', 'test', 'allow-dirty'],
      ['force', 'cost-to-resolve', 'interactions', 'confirmatory', 'beyond', 'test', 'allow-dirty'],
    );
    const out = resolve(flagText(flags, 'out'));
    if (existsSync(out) && !statSync(out).isDirectory())
      throw new Error(
        `--out ${out} is a file: power-plan reads the folder a standard sweep wrote (its T<n>/table.json)`,
      );
    if (flags.has('test') && !flags.has('interactions') && !flags.has('confirmatory') && !flags.has('beyond'))
      throw new Error('--test goes with --interactions, --confirmatory or --beyond (it tests that plan)');
    if (['interactions', 'confirmatory', 'beyond'].filter((f) => flags.has(f)).length > 1)
      throw new Error('--interactions, --confirmatory and --beyond are different plans: test one at a time');
    const allowDirty = flags.has('allow-dirty');
    if (flags.has('beyond')) {
      if (!flags.has('test'))
        throw new Error('--beyond goes with --test: the plan itself is made once by `npx tsx scripts/beyondPlans.ts`');
      return writeBeyondTest(out, allowDirty);
    }
    if (flags.has('confirmatory'))
      return flags.has('test')
        ? writeConfirmatoryTest(out, allowDirty)
        : writeConfirmatoryPlan(out, flags.has('force'), allowDirty);
    if (flags.has('interactions'))
      return flags.has('test')
        ? writeInteractionTest(out, allowDirty)
        : writeInteractionPlan(out, flags.has('force'), allowDirty);
    if (flags.has('cost-to-resolve')) {
      const tables = readGainTableFiles(out);
      const plan = readPowerPlan(out);
      const text =
        costToResolveMarkdown(
          tables.flatMap((t) => costToResolve(t, PLAN_CHOICES.power)),
          PLAN_CHOICES.power,
        ) +
        (plan
          ? '\n' +
            realisedPowerMarkdown(
              tables.flatMap((t) => realisedPower(t, (m) => plan.pooled[m as keyof typeof plan.pooled]?.sd ?? null)),
              PLAN_CHOICES.power,
            )
          : '');
      writeAtomic(join(out, 'cost-to-resolve.md'), text);
      console.log(text);
      return 0;
    }
    if (existsSync(join(out, 'plan.json')) && !flags.has('force')) {
      throw new Error(
        `${join(out, 'plan.json')} exists: a power plan is fixed before its runs and not remade after them (--force to replace it)`,
      );
    }
    const made = provenance(join(out, 'plan.json'), { allowDirty });
    const tables = readGainTableFiles(out);
    const plan: PowerPlan = {
      ...powerPlan(tables, PLAN_CHOICES, { date: new Date().toISOString(), commit: made.commit }),
      ...(made.dirtyFiles ? { dirtyFiles: made.dirtyFiles } : {}),
      made: {
        command: `npm run cli -- power-plan --out ${flagPath(out)}${flags.has('force') ? ' --force' : ''}${allowDirty ? ' --allow-dirty' : ''}`,
        tables: tables.map((t) => flagPath(join(out, t.id, 'table.json'))),
      },
    };
    writeAtomic(join(out, 'plan.json'), JSON.stringify(plan, null, 1) + '\n');
    writeAtomic(join(out, 'plan.md'), powerPlanMarkdown(plan, WHY));
    console.log(powerPlanMarkdown(plan, WHY));
    return 0;
  },
};

/** DIR/interactions-plan.{json,md} from the tables, DIR/plan.json's pooled SD and the largest seed in DIR/runs */
function writeInteractionPlan(out: string, force: boolean, allowDirty: boolean): number {
  const file = join(out, 'interactions-plan.json');
  if (existsSync(file) && !force)
    throw new Error(
      `${file} exists: a plan is fixed before its runs and not remade after them (--force to replace it)`,
    );
  const made = provenance(file, { allowDirty });
  const plan = readPowerPlan(out);
  if (!plan)
    throw new Error(
      `no power plan in ${out} (plan.json): its pooled SD sizes the interactions; run \`power-plan --out ${out}\` first`,
    );
  const runsDir = join(out, 'runs');
  const command = `npm run cli -- power-plan --out ${flagPath(out)} --interactions`;
  const p = interactionPlan(readGainTableFiles(out), {
    sd: plan.pooled.success.sd,
    usedSeedsUpTo: usedSeeds(runsDir).upTo,
    budgetCoreHours: INTERACTION_BUDGET_CORE_HOURS,
    power: PLAN_CHOICES.power,
    date: new Date().toISOString(),
    ...made,
    dirOf: (lab) => join(flagPath(runsDir), runDirName(lab)),
  });
  writeAtomic(file, JSON.stringify(p, null, 1) + '\n');
  const md = interactionPlanMarkdown(p, command);
  writeAtomic(join(out, 'interactions-plan.md'), md);
  console.log(md);
  return 0;
}

/** the interactions' plan's test on its fresh seeds, from each planned run's summary.json, into
 * DIR/interactions-test.{json,md} */
function writeInteractionTest(out: string, allowDirty: boolean): number {
  const file = join(out, 'interactions-plan.json');
  const made = provenance(join(out, 'interactions-test.json'), { allowDirty });
  if (!existsSync(file))
    throw new Error(`no interactions plan in ${out}: \`power-plan --out ${out} --interactions\` makes it`);
  const plan = JSON.parse(readFileSync(file, 'utf8')) as InteractionPlan;
  if (plan.format !== INTERACTION_PLAN_FORMAT)
    throw new Error(`${file} is not an interactions plan (format ${String(plan.format)})`);
  const finishedRuns = new Set<string>(); // a run two interactions share is counted once
  const results = testInteractionPlan(plan, (run) => {
    const summary = join(run.dir, 'summary.json');
    if (!existsSync(summary)) return undefined;
    const s = JSON.parse(readFileSync(summary, 'utf8')) as {
      lab: { seed: number };
      start: { success: number };
      final: { success: number };
    };
    if (s.lab.seed !== run.seed)
      throw new Error(`${summary} is seed ${s.lab.seed}, the plan's run there is seed ${run.seed}`);
    finishedRuns.add(run.dir);
    return 100 * (s.final.success - s.start.success); // as the run measured it: the test reads it unrounded
  }, { delta: PLAN_CHOICES.delta.success });
  for (const r of results) {
    const ci = r.interval ?? r.ci95;
    const fig =
      r.difference === null || !ci
        ? 'fewer than two seeds in a cell'
        : `${r.difference} [${ci.lo}, ${ci.hi}] (${100 * (1 - r.alpha)} %), df ${r.df}, p ${r.p} at α ${r.alpha}`;
    console.log(
      `${r.finding} ${r.interaction}: ${fig}; paper ${r.paper ?? '—'}; fresh seeds ${r.finished.join('/')} of ${r.planned} — ${r.call}`,
    );
  }
  if (results.length === 0) console.log('the plan holds no interaction');
  const finished = finishedRuns.size;
  const record = interactionTestRecord(plan, results, { date: new Date().toISOString(), ...made, finished,
    command: `npm run cli -- power-plan --out ${flagPath(out)} --interactions --test` });
  writeAtomic(join(out, 'interactions-test.json'), JSON.stringify(record, null, 1) + '\n');
  writeAtomic(join(out, 'interactions-test.md'), interactionTestMarkdown(record));
  console.log(
    `wrote ${flagPath(join(out, 'interactions-test.json'))} and .md (${finished} of ${plan.runs.length} planned runs finished)`,
  );
  return 0;
}

/** the largest seed of any run folder in DIR/runs (sweep names them <settings>_seed=N, seed 1 without the suffix),
 *  finished or not, and how many folders there are */
function usedSeeds(runsDir: string): { upTo: number; folders: number } {
  // a dot folder is the sweep's cache (.start-evaluations), not a run
  const dirs = existsSync(runsDir) ? readdirSync(runsDir).filter((d) => !d.startsWith('.')) : [];
  const used = dirs.map((d) => Number(/(?:^|_)seed=(\d+)/.exec(d)?.[1] ?? 1));
  return { upTo: Math.max(1, ...used), folders: dirs.length };
}

/** DIR/confirmatory-plan.{json,md} from the tables of the leads' findings and the largest seed in DIR/runs */
function writeConfirmatoryPlan(out: string, force: boolean, allowDirty: boolean): number {
  const file = join(out, 'confirmatory-plan.json');
  if (existsSync(file) && !force)
    throw new Error(
      `${file} exists: a plan is fixed before its runs and not remade after them (--force to replace it)`,
    );
  const made = provenance(file, { allowDirty });
  const runsDir = join(out, 'runs');
  const used = usedSeeds(runsDir);
  const tables = readGainTableFiles(out);
  const read = [...new Set(LAB_LEADS.map((l) => l.finding))].map((id) => {
    if (!tables.some((t) => t.id === id)) throw new Error(`no standard table of ${id} in ${out} (${id}/table.json)`);
    return flagPath(join(out, id, 'table.json'));
  });
  const p = confirmatoryPlan(tables, {
    usedSeedsUpTo: used.upTo,
    budgetCoreHours: CONFIRMATORY_BUDGET_CORE_HOURS,
    power: PLAN_CHOICES.power,
    familyAlpha: PLAN_CHOICES.alpha,
    delta: PLAN_CHOICES.delta.success,
    date: new Date().toISOString(),
    ...made,
    command: `npm run cli -- power-plan --out ${flagPath(out)} --confirmatory${force ? ' --force' : ''}${allowDirty ? ' --allow-dirty' : ''}`,
    file: flagPath(file),
    inputs: { tables: read, runsDir: flagPath(runsDir), runFolders: used.folders },
    dirOf: (lab) => join(flagPath(runsDir), runDirName(lab)),
  });
  writeAtomic(file, JSON.stringify(p, null, 1) + '\n');
  const md = confirmatoryPlanMarkdown(p);
  writeAtomic(join(out, 'confirmatory-plan.md'), md);
  console.log(md);
  return 0;
}

/** the confirmatory plan's test on its fresh seeds, from each planned run's summary.json, into
 *  DIR/confirmatory-test.{json,md} */
function writeConfirmatoryTest(out: string, allowDirty: boolean): number {
  const file = join(out, 'confirmatory-plan.json');
  const made = provenance(join(out, 'confirmatory-test.json'), { allowDirty });
  if (!existsSync(file))
    throw new Error(`no confirmatory plan in ${out}: \`power-plan --out ${out} --confirmatory\` makes it`);
  const plan = JSON.parse(readFileSync(file, 'utf8')) as ConfirmatoryPlan;
  if (plan.format !== CONFIRMATORY_PLAN_FORMAT)
    throw new Error(`${file} is not a confirmatory plan (format ${String(plan.format)})`);
  const finished = new Set<string>();
  const results = testConfirmatoryPlan(plan, (run) => {
    const summary = join(run.dir, 'summary.json');
    if (!existsSync(summary)) return undefined;
    const s = JSON.parse(readFileSync(summary, 'utf8')) as {
      lab: { seed: number };
      start: { success: number };
      final: { success: number };
    };
    if (s.lab.seed !== run.seed)
      throw new Error(`${summary} is seed ${s.lab.seed}, the plan's run there is seed ${run.seed}`);
    finished.add(run.dir);
    return 100 * (s.final.success - s.start.success);
  });
  const command = `npm run cli -- power-plan --out ${flagPath(out)} --confirmatory --test${allowDirty ? ' --allow-dirty' : ''}`;
  const record = confirmatoryTestRecord(plan, results, {
    date: new Date().toISOString(),
    ...made,
    finished: finished.size,
    command,
  });
  writeAtomic(join(out, 'confirmatory-test.json'), JSON.stringify(record, null, 1) + '\n');
  const md = confirmatoryTestMarkdown(record);
  writeAtomic(join(out, 'confirmatory-test.md'), md);
  console.log(md);
  return 0;
}

/** the plan in DIR, or null when there is none; throws on a file that is not a plan */
export function readPowerPlan(dir: string): PowerPlan | null {
  const file = join(dir, 'plan.json');
  if (!existsSync(file)) return null;
  const plan = JSON.parse(readFileSync(file, 'utf8')) as PowerPlan;
  if (plan.format !== POWER_PLAN_FORMAT) throw new Error(`${file} is not a power plan (format ${String(plan.format)})`);
  return plan;
}
