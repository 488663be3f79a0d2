// The findings' power plan: how many seeds each finding's cells need so that its pairs'
// difference tests (Welch, Holm across the finding's pairs: seedStatistics.ts) have 80 % power for the
// smallest difference worth detecting — fixed from the committed tables BEFORE any new run,
// as Colas, Sigaud & Oudeyer (2018) prescribe, so that no seed is added "until it comes out". The CLI's
// `power-plan` writes it as results/findings/plan.{json,md}; `sweep --standard` then runs each finding at
// its planned seeds and its tables make no call until they have all finished. Pure: no tfjs, no DOM, no fs.
import type { LabConfig } from '../lab/config.ts';
import { cellConfig, FINDINGS, nullControls, type CellMetric, type Finding, type FindingId } from './findings.ts';
import type { GainTable } from './findingGains.ts';
import { detectableDifference, pooledSd, seedsForPower } from '../stats/seedStatistics.ts';
import { serializeHash } from '../lab/urlState.ts';

export const POWER_PLAN_FORMAT = 'star-lab-power-plan/1';

/** the choices a plan is made from (each justified in plan.md) */
export interface PlanChoices {
  /** the smallest difference of mean gains worth detecting, in points, per metric */
  delta: Record<CellMetric, number>;
  /** the power wanted for that difference */
  power: number;
  /** the family-wise error rate of a finding's pairs */
  alpha: number;
  /** the most new compute the plan may spend, in core-hours */
  budgetCoreHours: number;
  /** the order the findings' runs go in (the cheapest finding to complete first) */
  order: FindingId[];
}

export interface PlannedArm {
  /** the run config's hash without its seed (the run folders are it plus `_seed=N`) */
  hash: string;
  scale: string;
  /** the findings that read this arm, and whether as a compared cell or a null control */
  findings: FindingId[];
  nullControl: boolean;
  /** seeds finished when the plan was made, and the seeds the plan asks for (1…planned) */
  finished: number;
  planned: number;
  /** the arm's measured cost per run (core-minutes, mean over its finished seeds) */
  coreMinutesPerRun: number;
  /** new runs and their cost */
  newRuns: number;
  newCoreMinutes: number;
}

export interface PlannedFinding {
  id: FindingId;
  /** pairs compared, and Holm's threshold for the first (smallest-p) of them: α / pairs */
  pairs: number;
  holmFirstAlpha: number;
  /** the metrics its pairs compare, each with its pooled SD and the seeds it needs */
  metrics: { metric: CellMetric; sd: number; seeds: number }[];
  /** seeds every cell and null control of the finding gets: the largest over its metrics */
  seeds: number;
  /** the difference (points, in its first metric) its test then detects with the planned power at Holm's first
   * threshold */
  detectable: number;
}

export interface PowerPlan {
  format: typeof POWER_PLAN_FORMAT;
  date: string;
  commit: string;
  /** files that differed from `commit` when the plan was made (only with --allow-dirty) */
  dirtyFiles?: { path: string; sha256: string | null }[];
  /** the world its runs train, their SFT starts' (the tables'); null where they differ; absent in plans made before it
   * was recorded */
  world?: { size: string; seed: number } | null;
  /** the command that made it, as typed, and the tables it read (absent in plans made before they were recorded) */
  made?: { command: string; tables: string[] };
  choices: PlanChoices;
  /** the pooled per-seed SD of a cell's gain, per metric, over every distinct RL cell of the committed tables (compared
   * or not) */
  pooled: Record<CellMetric, { sd: number; df: number; arms: number }>;
  findings: PlannedFinding[];
  /** every arm, in the order its runs go */
  arms: PlannedArm[];
  newRuns: number;
  newCoreHours: number;
  /** comparisons cut to fit the budget (none when the plan fits) */
  cut: string[];
}

const SCALE_OF = (lab: LabConfig) => lab.scale;
const withoutSeed = (lab: LabConfig) => serializeHash({ ...lab, seed: 1 });

interface ArmData { lab: LabConfig; gains: Partial<Record<CellMetric, number[]>>; coreMinutes: number; seeds: number }

/**
 * The runs a finding's plan asks for (without their seeds): every cell a compared pair names (a cell
 * shown but not compared, like T6's 3B row, needs no more seeds) and every null control. `label` is
 * the cell's row and column joined by a NUL, or the null control's scale label.
 */
export function plannedArms(
  f: Finding,
  common: Partial<LabConfig>,
): { lab: LabConfig; nullControl: boolean; label: string }[] {
  const compared = new Set(
    f.compares.pairs
      .flat()
      .filter((r) => r !== 'start')
      .map((r) => `${r[0]}\u0000${r[1]}`),
  );
  const cells = f.cells
    .filter((c) => compared.has(`${c.row}\u0000${c.col}`))
    .flatMap((c) => {
      const lab = cellConfig(f, c, common);
      return lab ? [{ lab, nullControl: false, label: `${c.row}\u0000${c.col}` }] : [];
    });
  const seen = new Set<string>();
  const unique = cells.filter((c) => {
    const k = withoutSeed(c.lab);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return [...unique, ...nullControls(f, common).map((n) => ({ lab: n.config, nullControl: true, label: n.label }))];
}

/** every distinct run config the tables compare (cells in a pair, and null controls), with its per-seed gains and
 * cost */
function armsOf(
  tables: readonly GainTable[],
): Map<string, ArmData & { nullControl: boolean; findings: Set<FindingId> }> {
  const arms = new Map<string, ArmData & { nullControl: boolean; findings: Set<FindingId> }>();
  for (const t of tables) {
    const f = FINDINGS.find((x) => x.id === t.id)!;
    const entries = plannedArms(f, t.common).flatMap((a) => {
      const cells = a.nullControl
        ? t.nullControl.filter((c) => c.col.startsWith(a.label))
        : t.cells.filter((c) => c.row === a.label.split('\u0000')[0] && c.col === a.label.split('\u0000')[1]);
      return cells.map((cell) => ({ ...a, cell }));
    });
    for (const { lab, nullControl, cell } of entries) {
      const key = withoutSeed(lab);
      const arm = arms.get(key) ?? {
        lab,
        gains: {},
        coreMinutes: 0,
        seeds: 0,
        nullControl,
        findings: new Set<FindingId>(),
      };
      arm.findings.add(f.id);
      if (cell && cell.seeds.length) {
        arm.gains[cell.metric] = cell.gain;
        arm.seeds = Math.max(arm.seeds, cell.seeds.length);
        if (cell.coreMinutes !== null) arm.coreMinutes = cell.coreMinutes / cell.seeds.length;
      }
      arms.set(key, arm);
    }
  }
  return arms;
}

/** the per-seed gains in `metric` of every distinct RL cell of the tables, compared or not (more arms, a better SD) */
function rlGains(tables: readonly GainTable[], metric: CellMetric): number[][] {
  const seen = new Map<string, number[]>();
  for (const t of tables) {
    const f = FINDINGS.find((x) => x.id === t.id)!;
    for (const c of f.cells) {
      const lab = cellConfig(f, c, t.common);
      const cell = t.cells.find((x) => x.row === c.row && x.col === c.col);
      if (lab && c.metric === metric && cell && cell.gain.length >= 2) seen.set(withoutSeed(lab), cell.gain);
    }
  }
  return [...seen.values()];
}

/** the metrics a finding's pairs compare */
function pairMetrics(f: Finding): CellMetric[] {
  const refs = f.compares.pairs.flat().filter((r) => r !== 'start');
  return [...new Set(refs.map((r) => f.cells.find((c) => c.row === r[0] && c.col === r[1])!.metric))];
}

/**
 * The plan: the pooled per-seed SD of each metric over every distinct RL cell (null controls left out:
 * with no signal they drift in their own way — the l null collapses to 0 in every seed), then per finding
 * the seeds for `power` at Holm's first threshold α / pairs (conservative: Holm's later pairs test at
 * larger thresholds), then per arm the largest seeds of the findings that read it.
 */
export function powerPlan(
  tables: readonly GainTable[],
  choices: PlanChoices,
  meta: { date: string; commit: string },
): PowerPlan {
  const arms = armsOf(tables);
  const pooled = Object.fromEntries(
    (['success', 'ood'] as const).map((m) => {
      const samples = rlGains(tables, m);
      // a metric no table measures (e.g. OOD in T5 alone) has no spread; a finding that compares it says so below
      return [m, samples.length ? { ...pooledSd(samples), arms: samples.length } : { sd: NaN, df: 0, arms: 0 }];
    }),
  ) as PowerPlan['pooled'];

  // the findings whose tables were given, in the plan's order
  const findings: PlannedFinding[] = choices.order
    .filter((id) => tables.some((t) => t.id === id))
    .map((id) => {
      const f = FINDINGS.find((x) => x.id === id)!;
      const pairs = f.compares.pairs.length;
      const holmFirstAlpha = choices.alpha / pairs;
      for (const m of pairMetrics(f))
        if (!(pooled[m].sd > 0))
          throw new Error(`powerPlan: ${id} compares ${m}, but no table has two seeds of an RL cell in it`);
      const metrics = pairMetrics(f).map((metric) => ({
        metric,
        sd: pooled[metric].sd,
        seeds: seedsForPower({
          delta: choices.delta[metric],
          sd: pooled[metric].sd,
          alpha: holmFirstAlpha,
          power: choices.power,
        }),
      }));
      const seeds = Math.max(...metrics.map((m) => m.seeds));
      return {
        id,
        pairs,
        holmFirstAlpha,
        metrics,
        seeds,
        detectable: detectableDifference({ n: seeds, sd: metrics[0].sd, alpha: holmFirstAlpha, power: choices.power }),
      };
    });
  const seedsOf = new Map(findings.map((f) => [f.id, f.seeds]));

  // arms in the order of the first finding that reads them
  const ordered = [...arms.entries()].sort(
    ([, a], [, b]) => firstIn(a.findings, choices.order) - firstIn(b.findings, choices.order),
  );
  const planned: PlannedArm[] = ordered.map(([hash, a]) => {
    const findingsOfArm = choices.order.filter((id) => a.findings.has(id));
    const want = Math.max(...findingsOfArm.map((id) => seedsOf.get(id) ?? 0));
    const newRuns = Math.max(0, want - a.seeds);
    return {
      hash,
      scale: SCALE_OF(a.lab),
      findings: findingsOfArm,
      nullControl: a.nullControl,
      finished: a.seeds,
      planned: want,
      coreMinutesPerRun: Math.round(10 * a.coreMinutes) / 10,
      newRuns,
      newCoreMinutes: Math.round(10 * newRuns * a.coreMinutes) / 10,
    };
  });
  const newCoreHours = planned.reduce((s, a) => s + a.newCoreMinutes, 0) / 60;
  const cut =
    newCoreHours > choices.budgetCoreHours
      ? [
          `the plan needs ${newCoreHours.toFixed(1)} core-hours, over the budget of ${choices.budgetCoreHours}: cut comparisons before running`,
        ]
      : [];
  const worlds = [...new Set(tables.map((t) => JSON.stringify(t.world ?? null)))];
  const world = worlds.length === 1 ? (JSON.parse(worlds[0]) as PowerPlan['world']) : null;
  return {
    format: POWER_PLAN_FORMAT,
    ...meta,
    world,
    choices,
    pooled,
    findings,
    arms: planned,
    newRuns: planned.reduce((s, a) => s + a.newRuns, 0),
    newCoreHours: Math.round(10 * newCoreHours) / 10,
    cut,
  };
}

function firstIn(ids: Set<FindingId>, order: readonly FindingId[]): number {
  return Math.min(...[...ids].map((id) => order.indexOf(id)).filter((i) => i >= 0), order.length);
}

/** the seeds a finding's tables use under a plan (1…planned), or null when the plan does not name it */
export function plannedSeeds(plan: PowerPlan | null, id: FindingId): number[] | null {
  const f = plan?.findings.find((x) => x.id === id);
  return f ? Array.from({ length: f.seeds }, (_, i) => i + 1) : null;
}

const f1 = (x: number) => x.toFixed(1);
/** an arm's hash less the standard size's evaluation settings every arm shares */
const armLabel = (hash: string) =>
  hash
    .replace(/&?evalEvery=40&evalQueries=300&evalToolQa=100/, '')
    .replace('#&', '#')
    .replace(/^#$/, '(defaults: m, Sum, GRPO)');

/** the tables a plan read, and how many finished seeds their cells held then */
function tablesRead(p: PowerPlan): string {
  const finished = p.arms.map((a) => a.finished);
  const lo = Math.min(...finished);
  const hi = Math.max(...finished);
  const seeds = finished.length ? ` (${lo === hi ? lo : `${lo}–${hi}`} finished seeds a cell then)` : '';
  return p.made
    ? `the standard tables ${p.made.tables.map((t) => `\`${t}\``).join(', ')}${seeds}`
    : `the standard tables${seeds}`;
}

/** plan.md: the plan in words and tables, with the reasons for its choices (`why`, one paragraph each) */
export function powerPlanMarkdown(p: PowerPlan, why: { delta: string; budget: string; order: string }): string {
  const c = p.choices;
  const lines = [
    "# The findings' power plan",
    '',
    `Made ${p.date.slice(0, 10)} at commit ${p.commit.slice(0, 10)}, before any of its runs, from ${tablesRead(p)}.` +
      (p.world ? ` Its runs train the ${p.world.size} world (seed ${p.world.seed}), their SFT starts'.` : ''),
    "It fixes how many seeds each finding gets; `sweep --standard` runs exactly those, and a finding's table makes no call until all of them have finished (no optional stopping: no seed is added after a result is seen).",
    '',
    '## The choices',
    '',
    `- **Test**: Welch's t-test of the difference of two cells' mean gains over the SFT start (a one-sample t-test where a pair names the start), Holm's correction across a finding's pairs at family-wise α = ${c.alpha}.`,
    `- **Spread**: the pooled per-seed SD of a cell's gain over every distinct RL arm of the committed tables (null controls left out: the l null collapses to 0 % in every seed): success ${f1(p.pooled.success.sd)} points (${p.pooled.success.arms} arms, ${p.pooled.success.df} degrees of freedom), OOD ${f1(p.pooled.ood.sd)} points (${p.pooled.ood.arms} arms, ${p.pooled.ood.df} df).`,
    `- **Smallest difference worth detecting**: ${f1(c.delta.success)} points of success gain, ${f1(c.delta.ood)} of OOD gain. ${why.delta}`,
    `- **Power**: ${Math.round(100 * c.power)} % at Holm's first threshold α / pairs (conservative: Holm tests its later pairs at larger thresholds). Seeds from the noncentral t (\`seedsForPower\`, src/stats/seedStatistics.ts).`,
    `- **Budget**: ${c.budgetCoreHours} core-hours of new runs. ${why.budget}`,
    '',
    '## Seeds per finding',
    '',
    "| finding | pairs | Holm's first α | metric: pooled SD → seeds | seeds a cell | detects (first metric, 80 % power) |",
    '|---|---|---|---|---|---|',
    ...p.findings.map(
      (f) =>
        `| ${f.id} | ${f.pairs} | ${f.holmFirstAlpha.toFixed(4)} | ${f.metrics.map((m) => `${m.metric}: ${f1(m.sd)} → ${m.seeds}`).join('; ')} | **${f.seeds}** | ${f1(f.detectable)} points of ${f.metrics[0].metric} |`,
    ),
    '',
    "Every cell and null control of a finding gets its seeds (1 … N; seeds 1–3 are the committed runs). A cell that several findings read (the T1 grid is T2's and T3's, T6's GRPO column is T1's Sum column) runs to the largest of their seeds; each finding's test reads only its own planned seeds.",
    '',
    '## The runs, in the order they go',
    '',
    why.order,
    '',
    '| # | arm (config over the standard size) | scale | read by | role | finished | planned | new runs | core-min / run | new core-min |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...p.arms.map(
      (a, i) =>
        `| ${i + 1} | \`${armLabel(a.hash)}\` | ${a.scale} | ${a.findings.join(', ')} | ${a.nullControl ? 'null control' : 'cell'} | ${a.finished} | ${a.planned} | ${a.newRuns} | ${f1(a.coreMinutesPerRun)} | ${f1(a.newCoreMinutes)} |`,
    ),
    '',
    `**Total: ${p.newRuns} new runs, ${f1(p.newCoreHours)} core-hours** (measured cost per run: the arm's own committed seeds, CPU seconds on this 2-core machine, two runs at a time).`,
    p.cut.length ? `\n**Cut before the runs:** ${p.cut.join('; ')}` : 'The plan fits the budget: no comparison is cut.',
    '',
    `Command: \`${p.made?.command ?? 'npm run cli -- power-plan --out DIR'}\` (refuses to overwrite a plan: a plan is made once, before its runs).`,
  ];
  return lines.join('\n') + '\n';
}

/** how far a finding's planned runs have got (`sweep --standard --status`) */
export interface FindingProgress {
  id: FindingId;
  seeds: number;
  /** its planned runs (cells in a pair and null controls, every planned seed) */
  planned: number;
  finished: number;
  /** unfinished runs with a saved mid-run state */
  saved: number;
  /** the plan's measured core-minutes of its unfinished runs: what completing this finding alone costs */
  coreMinutesLeft: number;
}

/** the progress of every finding, and of the plan (a run several findings share counted once) */
export interface PlanProgress {
  findings: FindingProgress[];
  runsLeft: number;
  coreMinutesLeft: number;
}

/**
 * The plan's progress from the runs that exist: per finding, in the plan's order, its planned runs and how
 * many have finished, and the cost left from each arm's planned core-minutes a run. Findings share runs
 * (T1's cells are T2's, T3's and T6's), so the plan's total counts each unfinished run once.
 */
export function planProgress(
  plan: PowerPlan,
  common: Partial<LabConfig>,
  state: (lab: LabConfig) => 'finished' | 'saved' | 'none',
): PlanProgress {
  const cost = new Map(plan.arms.map((a) => [a.hash, a.coreMinutesPerRun]));
  const left = new Map<string, number>(); // unfinished run → its core-minutes
  const findings = plan.choices.order.map((id) => {
    const f = FINDINGS.find((x) => x.id === id)!;
    const seeds = plannedSeeds(plan, id) ?? [];
    const row: FindingProgress = { id, seeds: seeds.length, planned: 0, finished: 0, saved: 0, coreMinutesLeft: 0 };
    for (const arm of plannedArms(f, common)) {
      for (const seed of seeds) {
        const lab = { ...arm.lab, seed };
        const s = state(lab);
        row.planned++;
        if (s === 'finished') {
          row.finished++;
          continue;
        }
        if (s === 'saved') row.saved++;
        const minutes = cost.get(withoutSeed(arm.lab)) ?? 0;
        row.coreMinutesLeft += minutes;
        left.set(serializeHash(lab), minutes);
      }
    }
    return row;
  });
  return { findings, runsLeft: left.size, coreMinutesLeft: [...left.values()].reduce((a, b) => a + b, 0) };
}
