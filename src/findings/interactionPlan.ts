// The power plan for the findings' scale × choice interactions, fixed BEFORE any of its runs: for
// each interaction the committed tables state, the seeds a cell a four-cell contrast needs for 80 % power to
// detect the paper's own interaction at Holm's first threshold (α / the finding's interactions) and the pooled
// per-seed SD of the power plan (results/findings/plan.json), and what that many FRESH seeds of all four cells
// cost at each cell's measured core-minutes per run. The interactions that fit the budget (cheapest first; a
// cell two of them share runs once, at the larger seed count) get a new experiment on seeds above every seed
// used so far, tested on those seeds alone — the committed seeds were seen, and a confirmation is not more
// seeds for a test already made. Pure: no tfjs, no DOM, no fs.
import { cellConfig, findingById, type FindingId } from './findings.ts';
import type { GainInteraction, GainTable } from './findingGains.ts';
import {
  fewestSeedsForPower,
  INTERACTION,
  interactionTest,
  intervalAt,
  meanAndSd,
  pooledSd,
  twoSampleTPower,
  type PairCall,
} from '../stats/seedStatistics.ts';
import { equivalenceFromEstimate } from '../stats/equivalence.ts';
import { serializeHash } from '../lab/urlState.ts';
import type { LabConfig } from '../lab/config.ts';

export const INTERACTION_PLAN_FORMAT = 'star-lab-interaction-plan/1';

/** seeds a cell past which an interaction is out of reach */
const MAX_SEEDS = 1000;

export interface PlannedInteraction {
  finding: FindingId;
  /** `(a − b) − (c − d)`, as the table names the cells */
  interaction: string;
  cells: [string, string, string, string];
  /** the paper's interaction (points); null: the paper has no figure for a cell, so nothing to size for */
  paper: number | null;
  /** Holm's first threshold across the finding's interactions */
  alpha: number;
  /** fresh seeds a cell for the power at the pooled SD; null: no paper figure, or more than MAX_SEEDS */
  seeds: number | null;
  /** core-minutes of one run of each of the four cells (their measured mean), summed */
  coreMinutesPerSeed: number;
  /** the core-hours of `seeds` fresh seeds of all four cells; null with seeds */
  coreHours: number | null;
  /** in the plan (fits the budget with those before it) */
  planned: boolean;
  /** why not, when not planned */
  left: string | null;
}

export interface PlannedRun {
  cell: string;
  finding: FindingId;
  seed: number;
  /** the run's full lab config, its #hash (seed included) */
  hash: string;
  config: LabConfig;
  /** the run's folder (as `sweep` names it) */
  dir: string;
  coreMinutes: number;
}

export interface InteractionPlan {
  format: typeof INTERACTION_PLAN_FORMAT;
  date: string;
  commit: string;
  /** files that differed from `commit` when the plan was made (only with --allow-dirty) */
  dirtyFiles?: { path: string; sha256: string | null }[];
  /** the world its runs train, their SFT starts' (each run's config says it too); absent in plans made before it was
   * recorded */
  world?: { size: LabConfig['worldSize']; seed: number } | null;
  /** a correction made to the committed plan after the fact, in words (what changed and what did not) */
  note?: string;
  power: number;
  /** the pooled per-seed SD of a cell's success gain (the power plan's) */
  sd: number;
  budgetCoreHours: number;
  /** the largest seed any committed run used; the fresh seeds start above it */
  usedSeedsUpTo: number;
  interactions: PlannedInteraction[];
  /** the fresh seeds (one list for every planned cell) and the runs, seed by seed */
  seeds: number[];
  runs: PlannedRun[];
  coreHours: number;
}

const round1 = (x: number) => Math.round(10 * x) / 10;
const name = (x: GainInteraction) => `(${x.plus[0]} − ${x.plus[1]}) − (${x.minus[0]} − ${x.minus[1]})`;

/**
 * The plan from the committed standard tables: `sd` the pooled per-seed SD, `usedSeedsUpTo` the largest seed of
 * any committed run (the runs folder's, null controls included), `budgetCoreHours` the most the plan may spend.
 */
export function interactionPlan(
  tables: readonly GainTable[],
  o: {
    sd: number;
    usedSeedsUpTo: number;
    budgetCoreHours: number;
    power?: number;
    date: string;
    commit: string;
    dirtyFiles?: { path: string; sha256: string | null }[];
    dirOf: (lab: LabConfig) => string;
  },
): InteractionPlan {
  if (!(o.sd > 0)) throw new Error(`interactionPlan: the pooled SD must be positive, got ${o.sd}`);
  if (!Number.isInteger(o.usedSeedsUpTo) || o.usedSeedsUpTo < 1)
    throw new Error(`interactionPlan: usedSeedsUpTo must be a positive integer, got ${o.usedSeedsUpTo}`);
  const power = o.power ?? 0.8;
  const rows = tables.flatMap((t) =>
    (t.compares.interactions ?? []).map((x, _, all) => {
      const cells = [...x.plus, ...x.minus] as PlannedInteraction['cells'];
      const perRun = cells.reduce((s, label) => {
        const c = t.cells.find((y) => `${y.row} · ${y.col}` === label);
        if (!c || c.gain.length === 0 || c.coreMinutes === null)
          throw new Error(`${t.id}: no measured cost for the cell "${label}" of ${name(x)}`);
        return s + c.coreMinutes / c.gain.length;
      }, 0);
      const alpha = t.compares.alpha / all.length;
      const seeds =
        x.paper === null || x.paper === 0
          ? null
          : fewestSeedsForPower({
              delta: Math.abs(x.paper),
              sd: o.sd,
              alpha,
              power,
              max: MAX_SEEDS,
              design: INTERACTION,
            });
      return {
        table: t,
        row: {
          finding: t.id as FindingId,
          interaction: name(x),
          cells,
          paper: x.paper,
          alpha,
          seeds,
          coreMinutesPerSeed: round1(perRun),
          coreHours: seeds === null ? null : round1((seeds * perRun) / 60),
          planned: false as boolean,
          left: null as string | null,
        } satisfies PlannedInteraction,
      };
    }),
  );
  // cheapest first; a cell shared with an interaction already planned runs once, at the larger seed count
  const cellSeeds = new Map<string, { finding: FindingId; table: GainTable; seeds: number }>();
  const key = (f: string, cell: string) => `${f}\u0000${cell}`;
  const costOf = (m: Map<string, { table: GainTable; seeds: number }>) =>
    [...m.entries()].reduce((s, [k, v]) => {
      const c = v.table.cells.find((y) => `${y.row} · ${y.col}` === k.split('\u0000')[1])!;
      return s + (v.seeds * c.coreMinutes!) / c.gain.length;
    }, 0) / 60;
  for (const { table, row } of [...rows].sort(
    (a, b) => (a.row.coreHours ?? Infinity) - (b.row.coreHours ?? Infinity),
  )) {
    if (row.seeds === null) {
      row.left =
        row.paper === null
          ? 'the paper has no figure for one of its cells: nothing to size the test for'
          : `more than ${MAX_SEEDS} seeds a cell`;
      continue;
    }
    const trial = new Map(cellSeeds);
    for (const cell of row.cells)
      trial.set(key(row.finding, cell), {
        finding: row.finding,
        table,
        seeds: Math.max(row.seeds, trial.get(key(row.finding, cell))?.seeds ?? 0),
      });
    if (costOf(trial) > o.budgetCoreHours) {
      row.left = `${row.coreHours} core-hours${cellSeeds.size ? ` (${round1(costOf(trial))} with the interactions planned before it)` : ''}: past the ${o.budgetCoreHours} core-hour budget`;
      continue;
    }
    trial.forEach((v, k) => cellSeeds.set(k, v));
    row.planned = true;
  }
  const most = Math.max(0, ...[...cellSeeds.values()].map((v) => v.seeds));
  const seeds = Array.from({ length: most }, (_, i) => o.usedSeedsUpTo + 1 + i);
  const runs: PlannedRun[] = [];
  // seed by seed, so an interrupted plan is balanced across its cells
  for (const [i, seed] of seeds.entries()) {
    for (const [k, v] of cellSeeds) {
      if (i >= v.seeds) continue;
      const cell = k.split('\u0000')[1];
      const f = findingById(v.finding);
      const ref = f.cells.find((c) => `${c.row} · ${c.col}` === cell)!;
      const asked = { ...cellConfig(f, ref, v.table.common)!, seed };
      // the run trains its SFT start's world whatever the config says, so the plan records that world; the folder
      // keeps the sweep's name (which leaves the world out) so that the planned run is the one the sweep finds
      const config: LabConfig = v.table.world
        ? { ...asked, worldSize: v.table.world.size as LabConfig['worldSize'] }
        : asked;
      const c = v.table.cells.find((y) => `${y.row} · ${y.col}` === cell)!;
      runs.push({
        cell,
        finding: v.finding,
        seed,
        hash: serializeHash(config),
        config,
        dir: o.dirOf(asked),
        coreMinutes: round1(c.coreMinutes! / c.gain.length),
      });
    }
  }
  const worlds = [
    ...new Map(
      [...cellSeeds.values()].map((v) => [JSON.stringify(v.table.world ?? null), v.table.world ?? null]),
    ).values(),
  ];
  return {
    format: INTERACTION_PLAN_FORMAT,
    date: o.date,
    commit: o.commit,
    ...(o.dirtyFiles?.length ? { dirtyFiles: o.dirtyFiles } : {}),
    world:
      worlds.length === 1 && worlds[0]
        ? { size: worlds[0].size as LabConfig['worldSize'], seed: worlds[0].seed }
        : null,
    power,
    sd: o.sd,
    budgetCoreHours: o.budgetCoreHours,
    usedSeedsUpTo: o.usedSeedsUpTo,
    interactions: rows.map((r) => r.row),
    seeds,
    runs,
    coreHours: round1(costOf(cellSeeds)),
  };
}

const signed = (x: number) => (x > 0 ? `+${x.toFixed(1)}` : x < 0 ? `−${(-x).toFixed(1)}` : '0.0');

/** the plan as Markdown: what it sizes, for what, and the runs */
export function interactionPlanMarkdown(p: InteractionPlan, command: string): string {
  const planned = p.interactions.filter((x) => x.planned);
  const cells = [...new Set(p.runs.map((r) => `${r.finding} ${r.cell}`))];
  return [
    "# The interactions' power plan",
    '',
    `Made by \`${command}\` at commit ${p.commit.slice(0, 10)}${p.dirtyFiles?.length ? ` + ${p.dirtyFiles.length} uncommitted file(s) (listed in the .json)` : ''} on ${p.date.slice(0, 10)}, before any of its runs.` +
      (p.world ? ` Its runs train the ${p.world.size} world (seed ${p.world.seed}), their SFT starts'.` : ''),
    ...(p.note ? ['', `*Note: ${p.note}*`] : []),
    '',
    `For each scale × choice interaction the committed tables state: the fresh seeds a cell a four-cell contrast (Welch–Satterthwaite,`,
    `Σc² = 4) needs for ${Math.round(100 * p.power)} % power to detect the paper's own interaction at Holm's first threshold (α / the finding's`,
    `interactions), at the power plan's pooled per-seed SD of ${p.sd.toFixed(2)} points, and the core-hours of that many fresh seeds of all`,
    `four cells at each cell's measured cost per run. Budget: ${p.budgetCoreHours} core-hours; the cheapest first, a cell two planned`,
    'interactions share run once at the larger seed count.',
    '',
    '| finding | interaction | paper | α | seeds a cell | core-min a seed (4 cells) | core-hours | planned |',
    '|---|---|---|---|---|---|---|---|',
    ...p.interactions.map(
      (x) =>
        `| ${x.finding} | ${x.interaction} | ${x.paper === null ? '—' : signed(x.paper)} | ${x.alpha} | ${x.seeds ?? '—'} | ${x.coreMinutesPerSeed} | ${x.coreHours ?? '—'} | ${x.planned ? '**yes**' : `no: ${x.left}`} |`,
    ),
    '',
    planned.length === 0
      ? 'No interaction fits the budget: nothing to run.'
      : [
          `**The plan:** ${planned.map((x) => `${x.finding} ${x.interaction}`).join('; ')} — ${p.runs.length} runs, ${p.coreHours} core-hours: ` +
            `fresh seeds ${p.seeds[0]}–${p.seeds[p.seeds.length - 1]} (every committed run used seeds up to ${p.usedSeedsUpTo}) of ${cells.join(', ')}.`,
          '',
          'The test, once every run has finished: the same Welch–Satterthwaite contrast as the tables (seedStatistics.interactionTest) on the',
          'fresh seeds ALONE — the committed seeds were seen before this plan and stay out of it —, each planned interaction at the α it was',
          "sized for (Holm's first threshold across its finding's stated interactions, so the unplanned ones cost it their share): supports",
          'when p < α with a positive difference, contradicts when p < α with a negative one, else not resolved. No seed is added after the',
          'fact, and none stops early.',
          '',
          "Each run is one `run` of the CLI into its folder (named as `sweep` names it), in the plan's order, e.g. one at a time:",
          '',
          '```sh',
          `node -e 'for (const r of require("./results/findings/interactions-plan.json").runs) console.log(JSON.stringify(r.config) + "\\t" + r.dir)' |`,
          `  while IFS=$'\\t' read -r config dir; do npm run -s cli -- run --config "$config" --out "$dir" --resume --no-policy --quiet; done`,
          '```',
          '',
          "The runs in order (`interactions-plan.json` has each one's full config):",
          '',
          ...p.runs.map((r) => `- seed ${r.seed} · ${r.finding} ${r.cell} · \`${r.dir}\` · ~${r.coreMinutes} core-min`),
        ].join('\n'),
    '',
  ].join('\n');
}

/** a planned interaction, tested on the plan's fresh seeds */
export interface PlannedInteractionResult {
  finding: FindingId;
  interaction: string;
  /** the fresh seeds finished in each of the four cells, of `planned` */
  finished: [number, number, number, number];
  /** each of the four cells' finished fresh seeds: mean and SD of the gain (points, one decimal for display; the test
   *  reads the unrounded gains; null under two seeds) */
  cells: { cell: string; n: number; mean: number | null; sd: number | null }[];
  planned: number;
  /** the α the plan sized it for */
  alpha: number;
  paper: number | null;
  /** null until every cell has two finished seeds */
  difference: number | null;
  ci95: { lo: number; hi: number } | null;
  /** the interval at the level the call is made at, 1 − α (α: Holm's first threshold across the finding's
   *  interactions), the one shown beside the call (optional: records made before it have only ci95) */
  interval?: { lo: number; hi: number; level: number; holm: boolean } | null;
  df: number | null;
  p: number | null;
  /** interim until every planned run has finished (no call before: no optional stopping) */
  call: PairCall;
  /** the equivalence test at the plan's δ and the test's α (TOST: "rules out ±δ" only where it rejects), and the
   *  one-sided test that the interaction is below the paper's value; null until every cell has two seeds (optional:
   *  records made before it have none) */
  equivalence?: { delta: number; p: number; rulesOut: boolean; paper: { p: number; rulesOut: boolean } | null } | null;
  /** the pooled per-seed SD the fresh seeds realised beside the plan's, and the power the planned seeds had there to
   *  detect the paper's value (optional, as `equivalence`) */
  realised?: { sd: number; plannedSd: number; powerAtPaper: number | null } | null;
}

/**
 * The plan's test, as the plan states it: each planned interaction's contrast (interactionTest) on the fresh
 * seeds alone, at the α it was sized for; `gainOf` a planned run's gain in points (end − start success, unrounded)
 * or undefined while it has not finished.
 */
export function testInteractionPlan(
  p: InteractionPlan,
  gainOf: (run: PlannedRun) => number | undefined,
  o: { delta?: number } = {},
): PlannedInteractionResult[] {
  const delta = o.delta ?? 12;
  return p.interactions
    .filter((x) => x.planned)
    .map((x) => {
      const gains = x.cells.map((cell) =>
        p.runs
          .filter((r) => r.finding === x.finding && r.cell === cell && r.seed <= p.seeds[0] + x.seeds! - 1)
          .map(gainOf)
          .filter((g): g is number => g !== undefined),
      );
      const cells = x.cells.map((cell, i) => {
        const d = gains[i].length < 2 ? null : meanAndSd(gains[i]);
        return { cell, n: gains[i].length, mean: d && round1(d.mean), sd: d && round1(d.sd) };
      });
      const base = {
        finding: x.finding,
        interaction: x.interaction,
        finished: gains.map((g) => g.length) as PlannedInteractionResult['finished'],
        cells,
        planned: x.seeds!,
        alpha: x.alpha,
        paper: x.paper,
      };
      const complete = gains.every((g) => g.length >= x.seeds!);
      if (gains.some((g) => g.length < 2))
        return {
          ...base,
          difference: null,
          ci95: null,
          interval: null,
          df: null,
          p: null,
          call: complete ? 'not resolved' : 'interim',
          equivalence: null,
          realised: null,
        };
      const t = interactionTest([gains[0], gains[1]], [gains[2], gains[3]]);
      const call: PairCall = !complete
        ? 'interim'
        : t.p < x.alpha
          ? t.difference > 0
            ? 'supports'
            : 'contradicts'
          : 'not resolved';
      const r2 = (v: number) => Math.round(100 * v) / 100;
      const at = intervalAt(t.difference, t.se, t.df, x.alpha);
      const eq = equivalenceFromEstimate(t.difference, t.se, t.df, delta);
      // one-sided: the interaction as large as the paper's value (claimed positive) or larger, rejected at α
      const toPaper =
        x.paper !== null && x.paper > 0 ? equivalenceFromEstimate(t.difference, t.se, t.df, x.paper).upper.p : null;
      const sd = pooledSd(gains).sd;
      const p4 = (v: number) => Number(v.toPrecision(4));
      return {
        ...base,
        difference: r2(t.difference),
        ci95: { lo: r2(t.lo), hi: r2(t.hi) },
        interval: { lo: r2(at.lo), hi: r2(at.hi), level: 1 - x.alpha, holm: true },
        df: r2(t.df),
        p: Number(t.p.toPrecision(4)),
        call,
        equivalence: {
          delta,
          p: p4(eq.p),
          rulesOut: eq.p < x.alpha,
          paper: toPaper === null ? null : { p: p4(toPaper), rulesOut: toPaper < x.alpha },
        },
        realised: {
          sd: r2(sd),
          plannedSd: p.sd,
          powerAtPaper:
            x.paper === null || x.seeds! < 2
              ? null
              : r2(twoSampleTPower({ n: x.seeds!, delta: Math.abs(x.paper), sd, alpha: x.alpha, design: INTERACTION })),
        },
      };
    });
}
