// A finding's standard table: each cell's gain over the SFT start across seeds, with a 95 % t
// interval of the mean gain (seedGains.ts), the paper's gain over its own SFT column beside it, the cell's
// cost, the finding's null control (its base with shuffled advantages), and the call of each pair the claim
// compares (findings.ts `compares`) by a test of their difference — Welch's t-test, Holm across the
// finding's pairs, rliable's probability of improvement beside it (seedStatistics.ts) — and the finding's
// call from them. Until every planned seed of a compared cell and null control has finished the table
// is interim and makes no call.
// The sweep writes it as results/findings/<ID>/table.json; the page draws it, and the user's own runs
// with it. Pure: no tfjs, no DOM, no fs.
import type { LabConfig } from '../lab/config.ts';
import {
  cellConfig,
  nullControls,
  paperGain,
  paperInteraction,
  type CellMetric,
  type CellRef,
  type Finding,
} from './findings.ts';
import type { RunResult, TableStamp } from './findingTable.ts';
import { summariseArm, type SeedRun } from './seedGains.ts';
import { findingCall, testInteractions, type FindingCall, type PairCall } from '../stats/seedStatistics.ts';
import { comparePairs, START_LABEL, tableComplete } from './committedComparison.ts';

export const GAIN_TABLE_FORMAT = 'star-lab-finding-gains/1';

/** what a gain table needs of one finished run (one seed of one cell) */
export type SeedResult = RunResult & { cpuSeconds?: number };

/** one cell across its seeds; figures in % — a seed's as the run measured them (unrounded: the tests read them), a mean
 * or an interval end to four decimals (display) */
export interface GainCell {
  row: string;
  col: string;
  metric: CellMetric;
  /** the SFT start itself (no RL run): its gain is 0 by definition */
  sft: boolean;
  /** the seeds that finished, and per seed the start (step 0), end and gain (end − start) */
  seeds: number[];
  start: number[];
  end: number[];
  gain: number[];
  /** the seeds the size (or the power plan) asks for */
  planned: number;
  /** whether a pair of the claim compares this cell (a cell shown but not compared needs no planned seeds) */
  compared: boolean;
  /** means over the finished seeds (null: none finished) */
  mean: { start: number | null; end: number | null; gain: number | null };
  /** 95 % t interval of the mean gain across seeds (null: fewer than two seeds) */
  ci95: { lo: number; hi: number } | null;
  /** the paper's gain over its SFT column (null: it reports no number for the cell or its SFT) */
  paperGain: number | null;
  /** the finished seeds' cost: CPU seconds (wall seconds where not recorded) over 60 */
  coreMinutes: number | null;
  /** the run folders (or stored run ids) behind it */
  where: string[];
}

export type { PairCall };
export type DirectionCall = FindingCall;

/** one ordered pair of the claim ("higher gains more than lower"), tested; figures in points */
export interface GainPair {
  higher: string;
  lower: string;
  call: PairCall;
  /** the test behind the call: Welch between two cells, one-sample against the start; null while a side has < 2
   * seeds */
  test: 'welch' | 'one-sample' | null;
  /** mean gain of higher − mean gain of lower, its 95 % interval, the two-sided p and its Holm-adjusted value */
  difference: number | null;
  ci95: { lo: number; hi: number } | null;
  /** the interval at the level the call is made at (Holm's step level across the finding's pairs; 95 % for a
   *  finding of one pair): the interval shown beside the call (optional: tables made before it have only ci95) */
  interval?: { lo: number; hi: number; level: number; holm: boolean } | null;
  /** Schuirmann's equivalence test of |difference| < δ, the power plan's δ for the pair's metric, Holm across the
   *  finding's pairs; `shown`: it rejects (optional: tables made before it have none) */
  equivalence?: { delta: number; p: number; pAdjusted: number; shown: boolean } | null;
  df: number | null;
  p: number | null;
  pAdjusted: number | null;
  /** seeds behind each side (0: the start) */
  seeds: [number, number];
  /** P(a seed of higher gains more than a seed of lower), with its bootstrap 95 % interval (null against the start) */
  improvement: { estimate: number; lo: number; hi: number } | null;
  /** the power plan's smallest difference worth detecting (points) where the equivalence test shows the difference
   *  smaller; else null (optional: tables made before it say nothing) */
  rulesOut?: number | null;
}

/**
 * One scale × choice interaction of the claim, tested on the cells' per-seed gains: the difference of two
 * differences (plus[0] − plus[1]) − (minus[0] − minus[1]), which the paper claims positive; figures in points.
 * Welch–Satterthwaite contrast over the four cells, Holm across the finding's interactions (its own family,
 * apart from the pairs), called by the pairs' rule.
 */
export interface GainInteraction {
  /** the cells, named `row · col` as the pairs name them */
  plus: [string, string];
  minus: [string, string];
  /** seeds behind each of the four cells, in the order plus[0], plus[1], minus[0], minus[1] */
  seeds: [number, number, number, number];
  call: PairCall;
  /** null while a cell has fewer than two seeds */
  difference: number | null;
  ci95: { lo: number; hi: number } | null;
  df: number | null;
  p: number | null;
  pAdjusted: number | null;
  /** the interval at the level its call is made at (Holm's step level across the finding's interactions) */
  interval?: { lo: number; hi: number; level: number; holm: boolean } | null;
  /** the equivalence test of |interaction| < δ (the plan's δ for success), Holm across the finding's interactions */
  equivalence?: { delta: number; p: number; pAdjusted: number; shown: boolean } | null;
  /** the paper's interaction from its own numbers (null: it reports one of the four cells not) */
  paper: number | null;
  /** why the paper claims it positive */
  why: string;
}

export interface GainTable extends TableStamp {
  format: typeof GAIN_TABLE_FORMAT;
  id: string;
  title: string;
  claim: string;
  rows: string[];
  cols: string[];
  /** the size's name ('standard', or 'your runs' on the page) */
  size: string;
  cells: GainCell[];
  /** the null controls: row 'null control', col the metric (one scale) or the scale's label (a finding that spans
   * scales: one per scale) */
  nullControl: GainCell[];
  /** the pairs the claim orders, each tested; `alpha` the finding's family-wise level */
  compares: {
    doc: string;
    alpha: number;
    pairs: GainPair[];
    delta?: Partial<Record<CellMetric, number>> | null;
    interactions?: GainInteraction[];
  };
  direction: { call: DirectionCall; sentence: string };
  /** the table's cost: every finished run's core-minutes, the null control's included (shared runs counted in each
   * table) */
  coreMinutes: number;
}

const r1 = (x: number) => Math.round(10 * x) / 10;
/** a figure recorded for display: four decimals, so the one-decimal text is never rounded twice (27.146 → 27.15 →
 * 27.2) */
const rd = (x: number) => Math.round(1e4 * x) / 1e4;

/** a null control's column: the metric, or the scale's label where a finding has one per scale */
export function nullCol(label: string, metric: CellMetric, metrics: number): string {
  return !label ? metric : metrics > 1 ? `${label} · ${metric}` : label;
}

/** a cell over `seeds`: `configOf(seed)` names its run, `lookup` finds the finished one */
function seedCell(
  row: string,
  col: string,
  metric: CellMetric,
  seeds: readonly number[],
  configOf: (seed: number) => LabConfig | null,
  lookup: (lab: LabConfig) => SeedResult | undefined,
  paper: number | null,
  compared: boolean,
): GainCell {
  const runs: (SeedRun & { where: string })[] = [];
  const sft = configOf(seeds[0]) === null;
  for (const seed of seeds) {
    const lab = configOf(seed);
    const r = lab ? lookup(lab) : undefined;
    if (!r) continue;
    const [a, b] = metric === 'ood' ? [r.start.ood, r.final.ood] : [r.start.success, r.final.success];
    if (!Number.isFinite(a) || !Number.isFinite(b)) continue; // the run did not evaluate this metric
    const queries = metric === 'ood' ? 1 : (r.final.queries ?? 1);
    runs.push({
      seed,
      curve: [
        { step: 0, success: a, queries },
        { step: 1, success: b, queries },
      ],
      wallSeconds: r.wallSeconds,
      cpuSeconds: r.cpuSeconds,
      where: r.where,
    });
  }
  const empty: GainCell = {
    row,
    col,
    metric,
    sft,
    seeds: [],
    start: [],
    end: [],
    gain: [],
    planned: sft ? 0 : seeds.length,
    compared,
    mean: { start: null, end: null, gain: null },
    ci95: null,
    paperGain: paper,
    coreMinutes: null,
    where: [],
  };
  if (runs.length === 0) return empty;
  const arm = summariseArm(runs);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const cost =
    runs.reduce(
      (s, r) => s + (Number.isFinite(r.cpuSeconds) && r.cpuSeconds! > 0 ? r.cpuSeconds! : (r.wallSeconds ?? 0)),
      0,
    ) / 60;
  const g = arm.meanGain;
  return {
    ...empty,
    // each seed's figures as the run measured them: the tests read these, so they are never rounded
    seeds: arm.seeds,
    start: arm.start.map((x) => 100 * x),
    end: arm.end.map((x) => 100 * x),
    gain: arm.gain.map((x) => 100 * x),
    mean: { start: rd(100 * mean(arm.start)), end: rd(100 * mean(arm.end)), gain: rd(100 * g.estimate) },
    ci95: g.lo <= g.hi ? { lo: rd(100 * g.lo), hi: rd(100 * g.hi) } : null,
    coreMinutes: r1(cost),
    where: runs.map((r) => r.where),
  };
}

/** an SFT cell: the start figures of any run at its scale, per seed (its gain is 0) */
function sftCell(cell: GainCell, others: GainCell[]): GainCell {
  const from = others.find((c) => !c.sft && c.metric === cell.metric && c.seeds.length > 0);
  if (!from) return cell;
  const zeros = from.seeds.map(() => 0);
  const m = from.start.reduce((s, x) => s + x, 0) / from.start.length;
  return {
    ...cell,
    seeds: from.seeds,
    start: from.start,
    end: from.start,
    gain: zeros,
    mean: { start: rd(m), end: rd(m), gain: 0 },
    ci95: { lo: 0, hi: 0 },
  };
}

const label = (ref: CellRef) => (ref === 'start' ? START_LABEL : `${ref[0]} · ${ref[1]}`);

const r4 = (x: number) => Number(x.toPrecision(4));
const ri = <T extends { lo: number; hi: number }>(i: T): T => ({ ...i, lo: rd(i.lo), hi: rd(i.hi) });

/** the claim's pairs, tested by the committed comparison (committedComparison.ts) on the cells' unrounded gains;
 *  the record rounds the figures for display, the readers recompute them from the same cells */
function gainPairs(
  f: Finding,
  cells: readonly GainCell[],
  nullControl: readonly GainCell[],
  alpha: number,
  delta: Partial<Record<CellMetric, number>> | null,
): GainPair[] {
  const pairs = f.compares.pairs.map(([hi, lo]) => ({ higher: label(hi), lower: label(lo) }));
  return comparePairs({ id: f.id, cells, nullControl, compares: { alpha, pairs, delta } }).map((c) => ({
    higher: c.higher,
    lower: c.lower,
    seeds: c.seeds,
    call: c.call,
    test: c.test,
    difference: c.difference === null ? null : rd(c.difference),
    ci95: c.ci95 && ri(c.ci95),
    interval: c.interval && ri(c.interval),
    df: c.df === null ? null : rd(c.df),
    p: c.p === null ? null : r4(c.p),
    pAdjusted: c.pAdjusted === null ? null : r4(c.pAdjusted),
    improvement: c.improvement && {
      estimate: rd(c.improvement.estimate),
      lo: rd(c.improvement.lo),
      hi: rd(c.improvement.hi),
    },
    equivalence: c.equivalence && { ...c.equivalence, p: r4(c.equivalence.p), pAdjusted: r4(c.equivalence.pAdjusted) },
    rulesOut: c.equivalence?.shown ? c.equivalence.delta : null,
  }));
}

/** the claim's interactions, tested (seedStatistics.testInteractions) on the cells' per-seed gains; `complete`
 *  as the pairs', and every one of the interactions' cells with its planned seeds */
function gainInteractions(
  f: Finding,
  cells: readonly GainCell[],
  complete: boolean,
  alpha: number,
  delta: number | null,
): GainInteraction[] {
  const xs = f.compares.interactions ?? [];
  const cellAt = ([row, col]: readonly [string, string]) => {
    const c = cells.find((x) => x.row === row && x.col === col);
    if (!c) throw new Error(`${f.id}: an interaction names the cell "${row} · ${col}", which the table has not`);
    return c;
  };
  const done =
    complete &&
    xs.every((x) => [...x.plus, ...x.minus].every((ref) => cellAt(ref).seeds.length >= cellAt(ref).planned));
  const four = xs.map((x) => [...x.plus, ...x.minus].map(cellAt));
  const tests = testInteractions(
    four.map((c) => ({ plus: [c[0].gain, c[1].gain], minus: [c[2].gain, c[3].gain] })),
    { alpha, complete: done, delta },
  );
  return xs.map((x, i) => {
    const t = tests[i];
    const name = ([row, col]: readonly [string, string]) => `${row} · ${col}`;
    const base = {
      plus: [name(x.plus[0]), name(x.plus[1])] as [string, string],
      minus: [name(x.minus[0]), name(x.minus[1])] as [string, string],
      seeds: four[i].map((c) => c.seeds.length) as [number, number, number, number],
      paper: paperInteraction(f, x),
      why: x.why,
    };
    if (!t)
      return {
        ...base,
        call: done ? 'not resolved' : 'interim',
        difference: null,
        ci95: null,
        interval: null,
        df: null,
        p: null,
        pAdjusted: null,
        equivalence: null,
      };
    const e = t.equivalence;
    return {
      ...base,
      call: t.call,
      difference: rd(t.difference),
      ci95: { lo: rd(t.lo), hi: rd(t.hi) },
      interval: ri(t.interval),
      df: Number.isFinite(t.df) ? rd(t.df) : null,
      p: r4(t.p),
      pAdjusted: r4(t.pAdjusted),
      equivalence: e && { delta: e.delta, p: r4(e.p), pAdjusted: r4(e.pAdjusted), shown: e.shown },
    };
  });
}

/** `+4.20 ± 3.10` (the half-width of the interval; '± ?' for one seed, '…' for none) */
export function gainText(c: { mean: { gain: number | null }; ci95: GainCell['ci95'] }): string {
  if (c.mean.gain === null) return '…';
  if (!c.ci95) return `${signed(c.mean.gain)} ± ?`;
  return `${signed(c.mean.gain)} ± ${((c.ci95.hi - c.ci95.lo) / 2).toFixed(1)}`;
}

/** a gain with its sign, one decimal (−0.04 reads 0.0) */
export function signed(x: number): string {
  x = Math.round(10 * x) / 10;
  return x > 0 ? `+${x.toFixed(1)}` : x < 0 ? `−${(-x).toFixed(1)}` : '0.0';
}

/**
 * The finding's standard table over `seeds`: every cell's runs are its config at each seed (the SFT start
 * stays the shipped checkpoint), the null control the finding's base with shuffled advantages.
 */
export function gainTable(
  f: Finding,
  lookup: (lab: LabConfig) => SeedResult | undefined,
  seeds: readonly number[],
  meta: Omit<
    GainTable,
    | 'format'
    | 'id'
    | 'title'
    | 'claim'
    | 'rows'
    | 'cols'
    | 'cells'
    | 'nullControl'
    | 'compares'
    | 'direction'
    | 'coreMinutes'
  >,
  delta: Partial<Record<CellMetric, number>> | null = null,
): GainTable {
  if (seeds.length === 0) throw new Error('gainTable: no seeds');
  const withSeed = (lab: LabConfig | null, seed: number) => (lab ? { ...lab, seed } : null);
  const compared = new Set(
    f.compares.pairs
      .flat()
      .filter((r): r is Exclude<CellRef, 'start'> => r !== 'start')
      .map((r) => `${r[0]}\u0000${r[1]}`),
  );
  let cells = f.cells.map((cell) =>
    seedCell(
      cell.row,
      cell.col,
      cell.metric,
      seeds,
      (seed) => withSeed(cellConfig(f, cell, meta.common), seed),
      lookup,
      paperGain(f, cell),
      compared.has(`${cell.row}\u0000${cell.col}`),
    ),
  );
  cells = cells.map((c) => (c.sft ? sftCell(c, cells) : c));
  const metrics = [...new Set(f.cells.map((c) => c.metric))];
  const nullControl = nullControls(f, meta.common).flatMap((n) =>
    metrics.map((m) =>
      seedCell(
        'null control',
        nullCol(n.label, m, metrics.length),
        m,
        seeds,
        (seed) => ({ ...n.config, seed }),
        lookup,
        null,
        false,
      ),
    ),
  );
  // interim until every compared cell and every null control has all its planned seeds
  const complete = tableComplete({ cells, nullControl });
  const alpha = 0.05;
  const pairs = gainPairs(f, cells, nullControl, alpha, delta);
  const interactions = f.compares.interactions
    ? { interactions: gainInteractions(f, cells, complete, alpha, delta?.success ?? null) }
    : {};
  const direction = directionSentence(cells, nullControl, pairs);
  const seen = new Set<string>();
  let cost = 0;
  for (const c of [...cells, ...nullControl]) {
    // a run shows in two cells when both metrics read it (T2, T4): count it once
    const fresh = c.where.filter((w) => !seen.has(w));
    if (c.coreMinutes !== null && c.where.length) cost += (c.coreMinutes * fresh.length) / c.where.length;
    fresh.forEach((w) => seen.add(w));
  }
  return {
    format: GAIN_TABLE_FORMAT,
    id: f.id,
    title: f.title,
    claim: f.claim,
    rows: f.rows,
    cols: f.cols,
    ...meta,
    cells,
    nullControl,
    compares: { doc: f.compares.doc, alpha, pairs, delta, ...interactions },
    direction,
    coreMinutes: r1(cost),
  };
}

function directionSentence(cells: GainCell[], nullControl: GainCell[], pairs: GainPair[]): GainTable['direction'] {
  const calls = pairs.map((p) => p.call);
  const call = findingCall(calls);
  const unfinished = [...cells.filter((c) => c.compared), ...nullControl].filter((c) => c.seeds.length < c.planned);
  const n = (k: PairCall) => calls.filter((c) => c === k).length;
  const nulls = nullControl.filter((c) => c.mean.gain !== null).map((c) => `${c.col} ${gainText(c)}`);
  const parts =
    call === 'interim'
      ? [
          `${unfinished.length} of the compared cells and null controls have not all their planned seeds (${unfinished.map((c) => `${c.row} · ${c.col} ${c.seeds.length}/${c.planned}`).join(', ')}); no call until they have`,
        ]
      : [
          `${n('supports')} of ${calls.length} compared pairs support the paper's direction, ${n('contradicts')} contradict it, ${n('not resolved')} not resolved (Welch's t-test, Holm across the ${calls.length} pair${calls.length > 1 ? 's' : ''}, family-wise 5 %)`,
        ];
  parts.push(`null control ${nulls.length ? nulls.join(', ') : 'not run yet'}`);
  return { call, sentence: `${parts.join('; ')}.` };
}

/** the interval shown beside a call: at its level, or (a table made before levels were recorded) the 95 % one */
export function callInterval(x: {
  ci95: { lo: number; hi: number } | null;
  interval?: { lo: number; hi: number; level: number; holm: boolean } | null;
}): { lo: number; hi: number; level: number; holm: boolean } | null {
  return x.interval ?? (x.ci95 && { ...x.ci95, level: 0.95, holm: false });
}
