// `npm run cli -- sweep`: the grid behind one of the seven findings (src/lab/findings.ts), run after run,
// each a `run` (rlRun.ts) in its own folder under --runs, named by its config; a run already finished
// there is reused, so a sweep can be continued later and findings that share cells (T1/T2/T3, T1/T6)
// share runs. Prints and writes table.md and table.json in the paper's shape, the paper's numbers beside:
// with --quick one seed and absolute figures (findingTable.ts); with --standard each cell's gain across
// seeds with its interval, the null control and the direction call (findingGains.ts).
import { catchStopSignals, Interrupted, STOP_EXIT } from '../interrupt.ts';
import { runDirName } from '../runDir.ts';
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagChoice, flagInt, flagOptionalText, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { defaultWasmThreads, NODE_BACKENDS, THREADS_ENV, wasmThreads } from '../../node/nodeBackend.ts';
import { shippedCheckpointDir, type RlSummary } from '../rlRun.ts';
import { readCard } from '../../node/checkpointDir.ts';
import { provenance, type Provenance } from '../../node/provenance.ts';
import { makeOutDir } from '../outDir.ts';
import {
  cellConfig,
  findingById,
  FINDINGS,
  nullControls,
  type CellMetric,
  type Finding,
} from '../../findings/findings.ts';
import { gainTable, type GainTable } from '../../findings/findingGains.ts';
import { gainMarkdown } from '../../findings/gainText.ts';
import {
  plannedArms,
  plannedSeeds,
  planProgress,
  type PlanProgress,
  type PowerPlan,
} from '../../findings/powerPlan.ts';
import { readPowerPlan } from './powerPlan.ts';
import { defaultConfig, type LabConfig } from '../../lab/config.ts';
import { parseLabConfig } from '../labConfigArg.ts';
import { findingTable, tableMarkdown, type TableWorld } from '../../findings/findingTable.ts';
import { shellCommand } from '../shellQuote.ts';
import { finishedRun, runAll } from '../sweepRuns.ts';
import { writeGainTable, writeGridCsv, writeTable } from '../sweepTables.ts';

/** --quick: sized so that the seven grids (23 distinct runs) fit in about two hours of this 2-core machine */
export const QUICK: Partial<LabConfig> = {
  steps: 12,
  queriesPerStep: 4,
  groupSize: 4,
  evalEvery: 12,
  evalQueries: 40,
  learningRate: 1e-4,
};

/**
 * --standard: the measured recipe's own run (40 steps of 4 × 8; its validation success rises until about
 * step 30 and flattens, results/rl-recipe), evaluated only at step 0 and the end (evalEvery = steps) on all
 * 300 validation queries and 100 unseen tool-QA tasks (±5 and ±10 points at 95 %), over STANDARD_SEEDS.
 */
export const STANDARD: Partial<LabConfig> = {
  steps: 40,
  queriesPerStep: 4,
  groupSize: 8,
  evalEvery: 40,
  evalQueries: 300,
  evalToolQa: 100,
  learningRate: 1e-4,
};
/** --standard's seeds: each changes query order, sampling and tool failures; the SFT start stays the shipped
 * checkpoint */
export const STANDARD_SEEDS = [1, 2, 3];

/** runs at once on webgpu by default: one GPU, shared by processes, is unmeasured (the GPU check measures one) */
const WEBGPU_JOBS = 1;

const KNOWN = [
  'preset',
  'quick',
  'standard',
  'seeds',
  'out',
  'runs',
  'backend',
  'steps',
  'jobs',
  'scales',
  'config',
  'tables-only',
  'threads',
  'status',
  'allow-dirty',
];

export { runDirName };

export const sweepCommand: Command = {
  name: 'sweep',
  summary: "run a finding's grid (T1…T7) and print its table beside the paper's",
  help: `usage: npm run cli -- sweep --preset T1|…|T7|all [--quick | --standard [--seeds 1,2,3]] --out DIR [--runs DIR] [--config CONFIG] [--steps N] [--jobs N] [--scales s,m,l] [--tables-only] [--threads N] [--backend wasm|cpu|webgpu] [--allow-dirty]

  --preset ID   the finding: ${FINDINGS.map((f) => `${f.id} ${f.title}`).join('; ')}; or all
  --quick       the first reference size (one seed): ${Object.entries(QUICK)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ')}
  --standard    the findings size: ${Object.entries(STANDARD)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ')}, ${STANDARD_SEEDS.length} seeds a cell
                and a null control per finding and scale (its base with advantages=shuffled); tables of gains with 95 % intervals
  --seeds LIST  the seeds of --standard (default ${STANDARD_SEEDS.join(',')}); where --out holds a power plan (plan.json,
                \`power-plan\`), each finding runs its planned seeds instead, and only the cells its pairs compare
  --out DIR     writes DIR/<ID>/table.md and table.json, and DIR/<ID>/runs.csv (one row per run of the grid:
                its settings, whether it finished, its start and end figures)
  --runs DIR    the runs' folders (default DIR/runs); finished runs there are reused, unfinished ones resumed
  --config C    settings every run shares (a lab link's #hash or JSON, as for \`run\`): they override the
                finding's base settings and --quick, never the axis the finding varies
  --steps N     override the steps of every run
  --jobs N      runs at once, each in its own process (default: the number of cores; on
                webgpu ${WEBGPU_JOBS}: the runs would share one GPU, each with a device of its own, which no
                figure shows to pay yet: docs/gpu-check.md)
  --scales LIST run only the cells at these scales (default s,m,l); the tables show every finished run in
                the runs folder, whichever sweep ran it, and the rest as not run yet
  --tables-only run nothing: write the tables from the runs that have finished
  --status      run nothing: with --standard and a plan in DIR, each finding's planned runs, how many have
                finished or saved a mid-run state, and the plan's core-hours left
  --threads N   wasm threads of each run (default: the cores over --jobs on a machine of 4+ cores, else 1; or $${THREADS_ENV})
  --backend B   wasm (default), cpu or webgpu
  --allow-dirty write tables and runs into the repository from code that differs from HEAD: each lists the
                differing files and their SHA-256 (without it such a sweep is refused before it starts: commit first)`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, KNOWN, ['quick', 'standard', 'tables-only', 'status', 'allow-dirty']);
    const id = flagText(flags, 'preset');
    const findings = id.toLowerCase() === 'all' ? FINDINGS : [findingById(id)];
    const out = resolve(flagText(flags, 'out'));
    const runs = resolve(flagOptionalText(flags, 'runs') ?? join(out, 'runs'));
    const backend = flagChoice(flags, 'backend', NODE_BACKENDS, 'wasm');
    const jobs = flagInt(flags, 'jobs', backend === 'webgpu' ? WEBGPU_JOBS : availableParallelism(), 1);
    // each run's share of the cores, so N runs at once do not fight over them
    const threads = flagInt(flags, 'threads', process.env[THREADS_ENV] ? wasmThreads() : defaultWasmThreads(jobs), 1);
    if (threads > 8) throw new Error(`--threads ${threads}: the threaded wasm build holds 8 threads`);
    process.env[THREADS_ENV] = String(threads); // read by this process's runs and inherited by the children
    const standard = flags.has('standard');
    if (standard && flags.has('quick')) throw new Error('--quick and --standard are two sizes: choose one');
    if (flags.has('seeds') && !standard) throw new Error('--seeds goes with --standard');
    // a power plan in --out fixes each finding's seeds (power-plan.ts): no --seeds beside it, no seed added after the
    // fact
    const plan = standard ? readPowerPlan(out) : null;
    if (plan && flags.has('seeds'))
      throw new Error(
        `${join(out, 'plan.json')} fixes the seeds of every finding: --seeds cannot change them (use another --out for other seeds)`,
      );
    const seeds = standard ? parseSeeds(flagText(flags, 'seeds', STANDARD_SEEDS.join(','))) : [];
    const seedsOf = (f: Finding) => plannedSeeds(plan, f.id) ?? seeds;
    const common: Partial<LabConfig> = {
      ...(flags.has('quick') ? QUICK : standard ? STANDARD : {}),
      ...explicitSettings(flagOptionalText(flags, 'config')),
    };
    if (flags.has('steps')) common.steps = flagInt(flags, 'steps', 12, 1);
    if (standard) common.evalEvery = common.steps; // evaluated at step 0 and the end only
    const scales = new Set(flagText(flags, 'scales', 's,m,l').split(','));
    for (const x of scales)
      if (!['s', 'm', 'l'].includes(x)) throw new Error(`--scales: "${x}" is not a scale (s, m or l)`);
    const command = shellCommand('npm run cli -- sweep', args); // pasted from a table into a shell: quoted
    const allowDirty = flags.has('allow-dirty');
    // the tables and runs it writes name the code that made them: refused here, before any run, where that cannot be
    // checked out
    const made = flags.has('status') ? { commit: '' } : provenance(join(out, 'table.json'), { allowDirty });
    if (flags.has('status')) {
      if (!plan)
        throw new Error(
          `--status reads a power plan: --standard and a DIR with plan.json (${join(out, 'plan.json')} ${standard ? 'is missing' : 'needs --standard'})`,
        );
      const state = (lab: LabConfig) => {
        const dir = join(runs, runDirName(lab));
        return finishedRun(dir, lab) ? 'finished' : existsSync(join(dir, 'resume', 'state.json')) ? 'saved' : 'none';
      };
      console.log(planStatusMarkdown(planProgress(plan, common, state), findings));
      return 0;
    }
    // both folders checked (and made) before any run: an --out that is a file is named, not met by the third run's raw
    // ENOTDIR
    makeOutDir(out);
    if (!flags.has('tables-only')) makeOutDir(runs, `--runs ${runs}`);
    // a stop reaches the run in progress; the same command continues the sweep (finished runs reused, saved ones
    // resumed)
    const stops = catchStopSignals(command, 'each run at its next rollout turn or micro-batch');
    const stopped = (e: unknown): number => {
      if (!(e instanceof Interrupted)) throw e;
      console.error(
        `interrupted (${e.signal}); each run in progress saved its last completed step, finished runs are kept; continue with the same command:\n  ${command}`,
      );
      return STOP_EXIT[e.signal];
    };

    // every distinct run of the chosen findings, in finding order (T1/T2/T3 and T1/T6 share cells); with
    // --standard seed by seed within a finding (a grid has one seed of every cell before the next), then its null
    // control
    const configs = standard ? standardRuns(findings, plan, seeds, common) : new Map<string, LabConfig>();
    if (!standard)
      for (const f of findings)
        for (const cell of f.cells) {
          const lab = cellConfig(f, cell, common);
          if (lab) configs.set(runDirName(lab), lab);
        }
    for (const [name, lab] of configs) if (!scales.has(lab.scale)) configs.delete(name);
    if (standard) {
      // gain tables rewritten as each run finishes: an interrupted sweep leaves tables that say which cells are
      // unfinished
      const summaries = new Map<string, RlSummary>();
      const write = () => {
        for (const f of findings)
          writeGainTable(
            join(out, f.id),
            standardTable(f, summaries, runs, seedsOf(f), {
              command,
              backend,
              common,
              made,
              delta: plan?.choices.delta ?? null,
            }),
          );
      };
      try {
        await runAll(
          [...configs],
          runs,
          backend,
          flags.has('tables-only') ? 0 : jobs,
          (name, s) => {
            summaries.set(name, s);
            write();
          },
          allowDirty,
          stops,
        );
      } catch (e) {
        return stopped(e);
      } finally {
        stops.release();
      }
      write();
      for (const f of findings)
        writeGridCsv(join(out, f.id), standardRuns([f], plan, seedsOf(f), common), summaries, runs);
      for (const f of findings)
        console.log(
          `\n${gainMarkdown(standardTable(f, summaries, runs, seedsOf(f), { command, backend, common, made, delta: plan?.choices.delta ?? null }))}`,
        );
      return 0;
    }
    let summaries: Map<string, RlSummary>;
    try {
      summaries = await runAll(
        [...configs],
        runs,
        backend,
        flags.has('tables-only') ? 0 : jobs,
        undefined,
        allowDirty,
        stops,
      );
    } catch (e) {
      return stopped(e);
    } finally {
      stops.release();
    }
    for (const f of findings) {
      const mine = new Set(
        f.cells
          .map((c) => cellConfig(f, c, common))
          .filter((l): l is LabConfig => l !== null)
          .map(runDirName),
      );
      const lookup = (lab: LabConfig) => {
        const s = summaries.get(runDirName(lab));
        // older runs recorded no evaluation size: theirs is the config's (the first evalQueries validation queries)
        return s
          ? {
              start: s.start,
              final: { ...s.final, queries: s.final.queries ?? s.rl?.evalQueries },
              wallSeconds: s.wallSeconds,
              oodTasks: s.rl?.evalToolQa,
              where: relative(process.cwd(), join(runs, runDirName(lab))),
            }
          : undefined;
      };
      // the grid's cost on one core: the sum of its runs' wall times (shared runs counted in each grid)
      const sweepSeconds = [...mine].reduce((t, name) => t + (summaries.get(name)?.wallSeconds ?? 0), 0);
      const table = findingTable(f, lookup, {
        command,
        ...made,
        date: new Date().toISOString(),
        backend,
        common,
        world: tableWorld(f, common),
        sweepSeconds,
      });
      writeTable(join(out, f.id), table);
      writeGridCsv(join(out, f.id), new Map([...configs].filter(([name]) => mine.has(name))), summaries, runs);
      console.log(`\n${tableMarkdown(table)}`);
    }
    return 0;
  },
};

/**
 * every run of `sweep --standard` over `findings`, by folder name, in the order it goes: finding by finding,
 * seed by seed within one (a grid has one seed of every cell before the next). Under a power plan only the
 * cells a pair compares and the null controls run, to the finding's planned seeds; else every cell and
 * null control to `seeds`. A cell several findings read (T1/T2/T3, T1/T6) appears once.
 */
export function standardRuns(
  findings: readonly Finding[],
  plan: PowerPlan | null,
  seeds: readonly number[],
  common: Partial<LabConfig>,
): Map<string, LabConfig> {
  const configs = new Map<string, LabConfig>();
  for (const f of findings) {
    const arms = plan
      ? plannedArms(f, common).map((a) => a.lab)
      : [
          ...f.cells.map((cell) => cellConfig(f, cell, common)).filter((l): l is LabConfig => l !== null),
          ...nullControls(f, common).map((n) => n.config),
        ];
    for (const seed of plannedSeeds(plan, f.id) ?? seeds)
      for (const lab of arms) configs.set(runDirName({ ...lab, seed }), { ...lab, seed });
  }
  return configs;
}

/** --seeds: distinct non-negative integers */
function parseSeeds(text: string): number[] {
  const seeds = text.split(',').map((x) => Number(x.trim()));
  if (seeds.some((x) => !Number.isInteger(x) || x < 0) || new Set(seeds).size !== seeds.length)
    throw new Error(`--seeds: "${text}" is not a list of distinct seeds, e.g. 1,2,3`);
  return seeds;
}

/** a finding's standard table from the finished runs (a missing run leaves its seed out of its cell) */
function standardTable(
  f: Finding,
  summaries: Map<string, RlSummary>,
  runs: string,
  seeds: number[],
  o: {
    command: string;
    backend: string;
    common: Partial<LabConfig>;
    made: Provenance;
    delta: Partial<Record<CellMetric, number>> | null;
  },
): GainTable {
  const lookup = (lab: LabConfig) => {
    // a run this sweep did not plan (another scale, another sweep running beside it) still counts once finished:
    // the table is of the runs folder, so two sweeps side by side never write tables without each other's runs
    const s = summaries.get(runDirName(lab)) ?? finishedRun(join(runs, runDirName(lab)), lab);
    return s
      ? {
          start: s.start,
          final: s.final,
          wallSeconds: s.wallSeconds,
          cpuSeconds: s.cpuSeconds,
          where: relative(process.cwd(), join(runs, runDirName(lab))),
        }
      : undefined;
  };
  return gainTable(
    f,
    lookup,
    seeds,
    {
      size: 'standard',
      command: o.command,
      ...o.made,
      date: new Date().toISOString(),
      backend: o.backend,
      common: o.common,
      world: tableWorld(f, o.common),
    },
    o.delta,
  );
}

/** --status: one row a chosen finding, and what the whole plan has left */
export function planStatusMarkdown(p: PlanProgress, chosen: readonly Finding[]): string {
  const h = (min: number) => (min / 60).toFixed(1);
  const lines = [
    '| finding | seeds a cell | planned runs | finished | saved mid-run | left | core-hours to complete it |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of p.findings.filter((x) => chosen.some((f) => f.id === x.id))) {
    const left = r.planned - r.finished;
    lines.push(
      `| ${r.id} | ${r.seeds} | ${r.planned} | ${r.finished} | ${r.saved} | ${left === 0 ? '0 (complete: its table makes its call)' : left} | ${h(r.coreMinutesLeft)} |`,
    );
  }
  lines.push(
    '',
    `The plan: ${p.runsLeft} runs left, ${h(p.coreMinutesLeft)} core-hours at its measured cost a run (findings share runs: T1's cells are T2's, T3's and T6's; each counted once here).`,
  );
  return lines.join('\n');
}

/** the settings a --config names (those that differ from the defaults) */
function explicitSettings(text: string | undefined): Partial<LabConfig> {
  if (text === undefined) return {};
  const lab = parseLabConfig(text);
  // the settings the user wrote, even where one equals its default (`scale=s` must beat a finding's base m)
  const written = new Set(text.trim().startsWith('{')
    ? Object.keys(JSON.parse(text) as object)
    : text.trim().replace(/^#/, '').split('&').map((part) => decodeURIComponent(part.split('=')[0])).filter(Boolean));
  const defaults = defaultConfig();
  return Object.fromEntries(
    Object.entries(lab).filter(
      ([k, v]) => written.has(k) || JSON.stringify(v) !== JSON.stringify(defaults[k as keyof LabConfig]),
    ),
  );
}

/** the world a finding's runs train in: their SFT starts' (an RL run trains in its start's world);
 *  null where the scales' starts disagree */
function tableWorld(f: Finding, common: Partial<LabConfig>): TableWorld | null {
  const scales = new Set(
    [...f.cells.map((c) => cellConfig(f, c, common)), ...nullControls(f, common).map((n) => n.config)]
      .filter((l): l is LabConfig => l !== null)
      .map((l) => l.scale),
  );
  const worlds = [...scales].map((scale) => readCard(shippedCheckpointDir(scale)).world);
  const first = worlds[0];
  return first && worlds.every((w) => w.size === first.size && w.seed === first.seed)
    ? { size: first.size, seed: first.seed }
    : null;
}
