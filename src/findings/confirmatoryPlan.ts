// The confirmatory plan: the lab's own leads — differences its committed seeds showed, planned pairs that did not
// reach a call and unplanned contrasts found by looking — each tested again on FRESH seeds, fixed before any of
// its runs. A lead found in the committed seeds cannot be confirmed by them (they chose it), so each lead gets a new
// two-cell experiment on seeds no committed run used, sized for 80 % power to detect the lab's own difference at
// that pair's own realised per-seed SD and Holm's first threshold across the plan; a run two leads share (the same
// config) runs once, at the larger seed count. The observed lead is likely inflated (it was picked for being large:
// the winner's curse), so the power is nominal: the plan also states the power at half the lead. Pure: no tfjs, no
// DOM, no fs.
import { cellConfig, findingById, type FindingId } from './findings.ts';
import type { GainTable } from './findingGains.ts';
import {
  fewestSeedsForPower,
  holmAdjust,
  meanAndSd,
  pooledSd,
  twoSampleTPower,
  welchTest,
} from '../stats/seedStatistics.ts';
import { serializeHash } from '../lab/urlState.ts';
import type { LabConfig } from '../lab/config.ts';

export const CONFIRMATORY_PLAN_FORMAT = 'star-lab-confirmatory-plan/1';

/** seeds a cell past which a lead is out of reach */
const MAX_SEEDS = 1000;

/** a lead to confirm: `higher` gained more than `lower` in the committed seeds (the lab's direction), and why it is
 *  a lead */
export interface Lead {
  finding: FindingId;
  higher: string;
  lower: string;
  why: string;
}

/** the lab's leads: the two planned pairs nearest a call (one against the paper's direction) and the two unplanned
 *  within-scale contrasts that stand out across all eighteen of T1 */
export const LAB_LEADS: readonly Lead[] = [
  { finding: 'T1', higher: '7B · Macro', lower: '7B · Sum', why: "planned pair, not resolved; the lab's difference runs against the paper's (Sum best at 7B)" },
  { finding: 'T6', higher: '7B · GRPO', lower: '7B · ARPO', why: "planned pair, not resolved; the lab's difference runs the paper's way" },
  { finding: 'T1', higher: '3B · Macro', lower: '3B · Success', why: 'unplanned contrast, found by looking across all within-scale pairs' },
  { finding: 'T1', higher: '7B · Macro', lower: '7B · Success', why: 'unplanned contrast, found by looking across all within-scale pairs' },
];

export interface PlannedLead extends Lead {
  /** a pair the finding planned (either way round), or a contrast found after the fact */
  pairOfFinding: 'planned' | 'unplanned';
  /** the paper's direction against the lead's: 'same', 'opposite', or null where the paper orders neither */
  paperDirection: 'same' | 'opposite' | null;
  /** the committed (exploratory) answer the lead comes from */
  committed: {
    seeds: [number, number];
    /** higher − lower, points */
    difference: number;
    sdHigher: number;
    sdLower: number;
    /** the pooled per-seed SD of both cells: the realised SD the plan is sized at */
    sd: number;
    p: number;
    /** Holm-adjusted p: across the finding's planned pairs for a planned one, across every within-scale pair of the
     *  finding's table for an unplanned one */
    pAdjusted: number;
    /** how many tests that Holm family held */
    family: number;
  };
  /** Holm's first threshold across the plan's leads (two-sided) */
  alpha: number;
  /** fresh seeds a cell for `power` at `committed.sd` to detect `committed.difference`; null: past MAX_SEEDS */
  seeds: number | null;
  /** the power at those seeds for the committed difference (≥ the plan's), and for half of it */
  powerAtLead: number | null;
  powerAtHalfLead: number | null;
  /** core-hours of `seeds` fresh seeds of both cells, alone (a shared cell counted here in full) */
  coreHours: number | null;
  planned: boolean;
  /** why not, when not planned */
  left: string | null;
}

/** one run folder of the plan: the cells (finding · label) that read it */
export interface ConfirmatoryCell {
  dir: string;
  cells: string[];
  config: LabConfig;
  seeds: number;
  coreMinutes: number;
}

export interface ConfirmatoryRun {
  cells: string[];
  seed: number;
  hash: string;
  config: LabConfig;
  dir: string;
  coreMinutes: number;
}

export interface ConfirmatoryPlan {
  format: typeof CONFIRMATORY_PLAN_FORMAT;
  date: string;
  commit: string;
  dirtyFiles?: { path: string; sha256: string | null }[];
  /** the command that made it, as typed */
  command: string;
  /** the plan's file, as the command names it (the runs' loop reads it) */
  file: string;
  /** what it read: the tables' files and the runs folder scanned for used seeds (its folder count) */
  inputs: { tables: string[]; runsDir: string; runFolders: number };
  world: { size: LabConfig['worldSize']; seed: number } | null;
  power: number;
  familyAlpha: number;
  /** the equivalence margin of the test (the power plan's δ for success) */
  delta: number;
  budgetCoreHours: number;
  usedSeedsUpTo: number;
  leads: PlannedLead[];
  cells: ConfirmatoryCell[];
  seeds: number[];
  runs: ConfirmatoryRun[];
  coreHours: number;
}

const round1 = (x: number) => Math.round(10 * x) / 10;
const round2 = (x: number) => Math.round(100 * x) / 100;
const label = (c: { row: string; col: string }) => `${c.row} · ${c.col}`;

function cellOf(t: GainTable, name: string) {
  const c = t.cells.find((y) => label(y) === name);
  if (!c) throw new Error(`${t.id}: a lead names the cell "${name}", which the table has not`);
  if (c.gain.length < 2 || c.coreMinutes === null)
    throw new Error(`${t.id}: the cell "${name}" has no measured spread or cost (fewer than two finished seeds)`);
  return c;
}

/** the lead's committed answer: its Welch test, and the Holm family it belongs to */
function committedAnswer(t: GainTable, lead: Lead): PlannedLead['committed'] & Pick<PlannedLead, 'pairOfFinding' | 'paperDirection'> {
  const a = cellOf(t, lead.higher).gain;
  const b = cellOf(t, lead.lower).gain;
  const w = welchTest(a, b);
  const pairs = t.compares.pairs;
  const at = pairs.findIndex(
    (p) => (p.higher === lead.higher && p.lower === lead.lower) || (p.higher === lead.lower && p.lower === lead.higher),
  );
  let family: number[];
  let index: number;
  if (at >= 0) {
    const cells = (n: string) => t.cells.find((y) => label(y) === n)?.gain ?? [];
    family = pairs.map((p) => welchTest(cells(p.higher), cells(p.lower)).p);
    index = at;
  } else {
    // every pair of cells within a row (a scale) of the table: the family the contrast was found in
    family = [];
    index = -1;
    for (const row of t.rows) {
      const inRow = t.cells.filter((c) => c.row === row && c.gain.length >= 2);
      for (let i = 0; i < inRow.length; i++)
        for (let j = i + 1; j < inRow.length; j++) {
          const [x, y] = [label(inRow[i]), label(inRow[j])];
          if ((x === lead.higher && y === lead.lower) || (x === lead.lower && y === lead.higher)) index = family.length;
          family.push(welchTest(inRow[i].gain, inRow[j].gain).p);
        }
    }
    if (index < 0) throw new Error(`${t.id}: "${lead.higher}" and "${lead.lower}" are not in one row of the table`);
  }
  const sa = meanAndSd(a).sd;
  const sb = meanAndSd(b).sd;
  return {
    pairOfFinding: at >= 0 ? 'planned' : 'unplanned',
    paperDirection: at < 0 ? null : pairs[at].higher === lead.higher ? 'same' : 'opposite',
    seeds: [a.length, b.length],
    difference: round2(w.difference),
    sdHigher: round2(sa),
    sdLower: round2(sb),
    sd: round2(pooledSd([a, b]).sd),
    p: Number(w.p.toPrecision(4)),
    pAdjusted: Number(holmAdjust(family)[index].toPrecision(4)),
    family: family.length,
  };
}

/**
 * The plan from the committed standard tables: `usedSeedsUpTo` the largest seed of any run in the runs folder, the
 * fresh seeds start above it. Leads are sized at α / (leads kept); while the runs cost more than the budget, the lead
 * whose leaving saves the most core-hours leaves (and the rest are resized at the new α), decided here before any run.
 */
export function confirmatoryPlan(
  tables: readonly GainTable[],
  o: {
    leads?: readonly Lead[];
    usedSeedsUpTo: number;
    budgetCoreHours: number;
    power?: number;
    familyAlpha?: number;
    delta: number;
    date: string;
    commit: string;
    dirtyFiles?: { path: string; sha256: string | null }[];
    command: string;
    file: string;
    inputs: ConfirmatoryPlan['inputs'];
    dirOf: (lab: LabConfig) => string;
  },
): ConfirmatoryPlan {
  if (!Number.isInteger(o.usedSeedsUpTo) || o.usedSeedsUpTo < 1)
    throw new Error(`confirmatoryPlan: usedSeedsUpTo must be a positive integer, got ${o.usedSeedsUpTo}`);
  const power = o.power ?? 0.8;
  const familyAlpha = o.familyAlpha ?? 0.05;
  const leads = o.leads ?? LAB_LEADS;
  if (leads.length === 0) throw new Error('confirmatoryPlan: no lead to confirm');
  const tableOf = (id: string) => {
    const t = tables.find((x) => x.id === id);
    if (!t) throw new Error(`confirmatoryPlan: no standard table of ${id} was read`);
    return t;
  };
  // each lead's two cells as run folders (a config two tables share is one folder), with their measured cost
  const sides = leads.map((lead) => {
    const t = tableOf(lead.finding);
    const f = findingById(lead.finding);
    return [lead.higher, lead.lower].map((name) => {
      const ref = f.cells.find((c) => label(c) === name);
      if (!ref) throw new Error(`${lead.finding}: no cell "${name}"`);
      const asked = cellConfig(f, ref, t.common);
      if (!asked) throw new Error(`${lead.finding}: the cell "${name}" is the SFT start, not a run`);
      const c = cellOf(t, name);
      // the run trains its SFT start's world whatever the config says: the plan records that world; the folder keeps
      // the sweep's name (which leaves the world out), so a planned run is the one the sweep would find
      const config: LabConfig = t.world ? { ...asked, worldSize: t.world.size as LabConfig['worldSize'] } : asked;
      return { cell: `${lead.finding} ${name}`, asked, config, dir: o.dirOf(asked), perRun: c.coreMinutes! / c.gain.length };
    });
  });
  const committed = leads.map((lead) => committedAnswer(tableOf(lead.finding), lead));
  // each power search integrates the noncentral t many times: once per lead and α
  const sized = new Map<string, number | null>();
  const sizeAt = (i: number, alpha: number) => {
    const k = `${i} ${alpha}`;
    if (!sized.has(k)) {
      const d = committed[i];
      sized.set(
        k,
        d.difference === 0
          ? null
          : fewestSeedsForPower({ delta: Math.abs(d.difference), sd: d.sd, alpha, power, max: MAX_SEEDS }),
      );
    }
    return sized.get(k)!;
  };
  const costOf = (kept: readonly number[], seedsOf: (i: number) => number | null) => {
    const folders = new Map<string, { perRun: number; seeds: number }>();
    for (const i of kept) {
      const n = seedsOf(i);
      if (n === null) continue;
      for (const s of sides[i]) {
        const was = folders.get(s.dir);
        folders.set(s.dir, { perRun: Math.max(s.perRun, was?.perRun ?? 0), seeds: Math.max(n, was?.seeds ?? 0) });
      }
    }
    return [...folders.values()].reduce((sum, v) => sum + v.seeds * v.perRun, 0) / 60;
  };
  let kept = leads.map((_, i) => i).filter((i) => sizeAt(i, familyAlpha / leads.length) !== null);
  const left = new Map<number, string>();
  leads.forEach((_, i) => {
    if (!kept.includes(i)) left.set(i, `more than ${MAX_SEEDS} seeds a cell`);
  });
  for (;;) {
    const alpha = familyAlpha / Math.max(1, kept.length);
    const total = costOf(kept, (i) => sizeAt(i, alpha));
    if (total <= o.budgetCoreHours || kept.length === 0) break;
    // the lead whose leaving saves the most (the later one on a tie)
    let best = -1;
    let saved = -Infinity;
    for (const i of kept) {
      const rest = kept.filter((k) => k !== i);
      const s = total - costOf(rest, (k) => sizeAt(k, familyAlpha / Math.max(1, rest.length)));
      if (s >= saved) [best, saved] = [i, s];
    }
    left.set(
      best,
      `the plan with it costs ${round1(total)} core-hours, past the ${o.budgetCoreHours} core-hour budget; ` +
        `leaving it saves the most (${round1(saved)})`,
    );
    kept = kept.filter((k) => k !== best);
  }
  const alpha = familyAlpha / Math.max(1, kept.length);
  const rows: PlannedLead[] = leads.map((lead, i) => {
    // a lead left out is shown as sized with every lead in
    const at = kept.includes(i) ? alpha : familyAlpha / leads.length;
    const seeds = sizeAt(i, at);
    const d = committed[i];
    const pw = (delta: number) =>
      seeds === null ? null : round2(twoSampleTPower({ n: seeds, delta, sd: d.sd, alpha: at }));
    return {
      ...lead,
      pairOfFinding: d.pairOfFinding,
      paperDirection: d.paperDirection,
      committed: {
        seeds: d.seeds,
        difference: d.difference,
        sdHigher: d.sdHigher,
        sdLower: d.sdLower,
        sd: d.sd,
        p: d.p,
        pAdjusted: d.pAdjusted,
        family: d.family,
      },
      alpha: at,
      seeds,
      powerAtLead: pw(Math.abs(d.difference)),
      powerAtHalfLead: pw(Math.abs(d.difference) / 2),
      coreHours: seeds === null ? null : round1((seeds * (sides[i][0].perRun + sides[i][1].perRun)) / 60),
      planned: kept.includes(i),
      left: left.get(i) ?? null,
    };
  });
  // the run folders, in the order the leads first name them
  const folders = new Map<string, ConfirmatoryCell & { perRun: number }>();
  for (const i of kept) {
    const n = rows[i].seeds!;
    for (const s of sides[i]) {
      const was = folders.get(s.dir);
      folders.set(s.dir, {
        dir: s.dir,
        cells: [...new Set([...(was?.cells ?? []), s.cell])],
        config: s.config,
        seeds: Math.max(n, was?.seeds ?? 0),
        perRun: Math.max(s.perRun, was?.perRun ?? 0),
        coreMinutes: 0,
      });
    }
  }
  const most = Math.max(0, ...[...folders.values()].map((v) => v.seeds));
  const seeds = Array.from({ length: most }, (_, i) => o.usedSeedsUpTo + 1 + i);
  const runs: ConfirmatoryRun[] = [];
  // seed by seed across every folder, so that a plan interrupted anywhere is balanced across its cells
  for (const [k, seed] of seeds.entries())
    for (const v of folders.values()) {
      if (k >= v.seeds) continue;
      const config = { ...v.config, seed };
      const asked = sides.flat().find((s) => s.dir === v.dir)!.asked;
      runs.push({
        cells: v.cells,
        seed,
        hash: serializeHash(config),
        config,
        dir: o.dirOf({ ...asked, seed }),
        coreMinutes: round1(v.perRun),
      });
    }
  const worlds = [...new Set(kept.map((i) => JSON.stringify(tableOf(leads[i].finding).world ?? null)))];
  const world = worlds.length === 1 ? (JSON.parse(worlds[0]) as ConfirmatoryPlan['world']) : null;
  return {
    format: CONFIRMATORY_PLAN_FORMAT,
    date: o.date,
    commit: o.commit,
    ...(o.dirtyFiles?.length ? { dirtyFiles: o.dirtyFiles } : {}),
    command: o.command,
    file: o.file,
    inputs: o.inputs,
    world,
    power,
    familyAlpha,
    delta: o.delta,
    budgetCoreHours: o.budgetCoreHours,
    usedSeedsUpTo: o.usedSeedsUpTo,
    leads: rows,
    cells: [...folders.values()].map(({ perRun, ...c }) => ({ ...c, coreMinutes: round1(perRun) })),
    seeds,
    runs,
    coreHours: round1(costOf(kept, (i) => rows[i].seeds)),
  };
}

const signed = (x: number) => (x > 0 ? `+${x.toFixed(1)}` : x < 0 ? `−${(-x).toFixed(1)}` : '0.0');
const pct = (x: number | null) => (x === null ? '—' : `${Math.round(100 * x)} %`);

/** the plan as Markdown: what it tests, why these seeds, what it costs, and the runs */
export function confirmatoryPlanMarkdown(p: ConfirmatoryPlan): string {
  const planned = p.leads.filter((x) => x.planned);
  const firstSeed = p.seeds[0];
  const lastSeed = p.seeds[p.seeds.length - 1];
  return [
    "# The confirmatory plan: the lab's own leads, on fresh seeds",
    '',
    `Made by \`${p.command}\` at commit ${p.commit.slice(0, 10)}${p.dirtyFiles?.length ? ` + ${p.dirtyFiles.length} uncommitted file(s) (listed in the .json)` : ''} on ${p.date.slice(0, 10)}, before any of its runs, ` +
      `from ${p.inputs.tables.map((t) => `\`${t}\``).join(' and ')} and the ${p.inputs.runFolders} run folders of \`${p.inputs.runsDir}\` (the largest seed there: ${p.usedSeedsUpTo}).` +
      (p.world ? ` Its runs train the ${p.world.size} world (seed ${p.world.seed}), their SFT starts'.` : ''),
    '',
    "A lead is a difference the committed seeds showed that no test called: a planned pair that did not reach its call, or an",
    'unplanned contrast found by looking. The seeds that showed it chose it, so they cannot confirm it: each lead gets a new',
    'experiment of its two cells on fresh seeds, and only those seeds are tested.',
    '',
    `- **Test**: Welch's t-test of the lead's difference (higher − lower, the lab's direction positive) on the fresh seeds alone, two-sided, Holm across the plan's ${planned.length} leads at family-wise α = ${p.familyAlpha}: **confirmed** when the adjusted p < ${p.familyAlpha} with the lead's sign, **reversed** with the other sign, else **not detected**. Beside it, Schuirmann's equivalence test (TOST) at ±${p.delta} points (the power plan's δ), Holm across the plan: only a rejected TOST may say "rules out ±${p.delta}".`,
    `- **Seeds**: the fewest fresh seeds a cell for ${Math.round(100 * p.power)} % power to detect the lab's own committed difference at that pair's own pooled per-seed SD (the realised SD of its two committed cells, not a pooled SD across the tables) and Holm's first threshold α / ${planned.length} = ${Number((p.familyAlpha / Math.max(1, planned.length)).toPrecision(3))} (conservative: Holm tests its later leads at larger thresholds). A run folder two leads share (the same config) runs once, at the larger seed count.`,
    "- **The winner's curse**: each lead was picked because it was large, so its committed difference likely overstates the true one, and the power is nominal. The power at half the lead says how much rests on that.",
    `- **Budget**: ${p.budgetCoreHours} core-hours, at each cell's measured cost per run (its committed runs' CPU time). While the plan costs more, the lead whose leaving saves the most leaves and the rest are resized at the new α, decided here, before any run.`,
    '',
    '| finding | lead (higher − lower) | kind | paper | committed: seeds, difference, SD (pooled) | committed p (Holm, family) | α | fresh seeds a cell | power at the lead | at half the lead | core-hours alone | planned |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...p.leads.map((x) => {
      const c = x.committed;
      return `| ${x.finding} | ${x.higher} − ${x.lower} | ${x.pairOfFinding === 'planned' ? 'planned pair' : '**exploratory** (unplanned)'} | ${x.paperDirection === null ? 'orders neither' : x.paperDirection === 'same' ? 'same direction' : '**opposite**'} | ${c.seeds.join('/')}, ${signed(c.difference)}, ${c.sd.toFixed(2)} (${c.sdHigher.toFixed(2)} / ${c.sdLower.toFixed(2)}) | ${c.p} (${c.pAdjusted} across ${c.family}) | ${Number(x.alpha.toPrecision(3))} | ${x.seeds ?? '—'} | ${pct(x.powerAtLead)} | ${pct(x.powerAtHalfLead)} | ${x.coreHours ?? '—'} | ${x.planned ? '**yes**' : `no: ${x.left}`} |`;
    }),
    '',
    planned.length === 0
      ? 'No lead fits the budget: nothing to run.'
      : [
          `**The plan:** ${planned.length} leads, ${p.runs.length} runs, **${p.coreHours} core-hours** (budget ${p.budgetCoreHours}), on fresh seeds ${firstSeed}–${lastSeed} (every run in \`${p.inputs.runsDir}\` used seeds up to ${p.usedSeedsUpTo}).`,
          '',
          '| run folder | cells it serves | fresh seeds | core-min a run |',
          '|---|---|---|---|',
          ...p.cells.map(
            (c) =>
              `| \`${c.dir.split('/').pop()}\` | ${c.cells.join(', ')} | ${c.seeds} (${firstSeed}–${firstSeed + c.seeds - 1}) | ${c.coreMinutes} |`,
          ),
          '',
          `The test, once every run has finished (\`${p.command.replace(/ --(force|allow-dirty)/g, '')} --test\`): each lead's`,
          "two cells, its first N fresh seeds (N its own seed count; a shared folder's later seeds belong to the lead that",
          'sized it), Welch and Holm across the plan as above (Holm holds whatever the dependence, so two leads may read one',
          "folder's seeds). No seed is added after the fact, none stops early, and the committed seeds stay out of it. Until",
          'then the figures are interim and no call is made.',
          '',
          "Each run is one `run` of the CLI into its folder (named as `sweep` names it), in the plan's order, one at a time:",
          '',
          '```sh',
          `node -e 'for (const r of require("${p.file.startsWith('/') ? p.file : `./${p.file}`}").runs) console.log(JSON.stringify(r.config) + "\\t" + r.dir)' |`,
          `  while IFS=$'\\t' read -r config dir; do STAR_WASM_THREADS=1 npm run -s cli -- run --config "$config" --out "$dir" --resume --no-policy --quiet; done`,
          '```',
          '',
          `The runs in order (\`${p.file}\` has each one's full config):`,
          '',
          ...p.runs.map((r) => `- seed ${r.seed} · ${r.cells.join(' = ')} · \`${r.dir}\` · ~${r.coreMinutes} core-min`),
        ].join('\n'),
    '',
  ].join('\n');
}
