// The geometry behind a finding's gain chart (the page's GainChart.svelte draws it): one line per cell
// of the finding, then its null control, each with the lab's standard gain and interval, the user's own
// gain and interval, the paper's gain, and the cell's cost; plus an axis in points that holds them all.
// Pure: no tfjs, no DOM.
import { nullCol, type GainCell, type GainPair, type GainTable } from './findingGains.ts';
import { shortLabels } from './gainText.ts';
import type { CellRef, Finding } from './findings.ts';
import { nullControls, paperGain } from './findings.ts';

/** one estimate on the chart: the mean gain, its 95 % interval (null: one seed) and the seeds' own gains */
export interface GainMark {
  mean: number;
  ci95: { lo: number; hi: number } | null;
  seeds: { seed: number; gain: number }[];
  /** seeds finished of those planned */
  done: number;
  planned: number;
}

export interface GainLine {
  label: string;
  metric: 'success' | 'ood';
  /** the null control's line (drawn apart, below the cells) */
  isNull: boolean;
  lab: GainMark | null;
  mine: GainMark | null;
  paper: number | null;
  /** the lab's cost of the cell in core-minutes (null: not run) */
  coreMinutes: number | null;
  /** the same runs as an earlier line (another metric of them: T2, T4), whose cost already counts them */
  sameRuns: boolean;
}

function mark(c: GainCell | undefined): GainMark | null {
  if (!c || c.mean.gain === null) return null;
  return {
    mean: c.mean.gain,
    ci95: c.ci95,
    seeds: c.seeds.map((seed, i) => ({ seed, gain: c.gain[i] })),
    done: c.seeds.length,
    planned: c.planned,
  };
}

/** the chart's lines: every non-SFT cell of the finding, then one null-control line per scale and metric */
export function gainLines(f: Finding, lab: GainTable | null, mine: GainTable | null): GainLine[] {
  const find = (t: GainTable | null, row: string, col: string) => t?.cells.find((c) => c.row === row && c.col === col);
  const multi = new Set(f.cells.map((c) => c.metric)).size > 1;
  const seen = new Set<string>();
  const costOf = (c: GainCell | undefined) => {
    const key = c?.where.length ? c.where.join('\n') : null;
    const same = key !== null && seen.has(key);
    if (key !== null) seen.add(key);
    return { coreMinutes: same ? null : c?.coreMinutes ?? null, sameRuns: same };
  };
  const lines: GainLine[] = f.cells
    .filter((c) => c.config !== null)
    .map((c) => ({
      label: `${c.row} · ${c.col}`,
      metric: c.metric,
      isNull: false,
      lab: mark(find(lab, c.row, c.col)),
      mine: mark(find(mine, c.row, c.col)),
      paper: paperGain(f, c),
      ...costOf(find(lab, c.row, c.col)),
    }));
  const metrics = [...new Set(f.cells.map((c) => c.metric))];
  for (const n of nullControls(f)) for (const m of metrics) {
    const col = nullCol(n.label, m, metrics.length);
    const cell = (t: GainTable | null) => t?.nullControl.find((c) => c.col === col && c.metric === m);
    const what = [n.label, multi ? (m === 'ood' ? 'OOD' : 'success') : ''].filter(Boolean).join(' · ');
    lines.push({ label: what ? `null control · ${what}` : 'null control', metric: m, isNull: true,
      lab: mark(cell(lab)), mine: mark(cell(mine)), paper: null, ...costOf(cell(lab)) });
  }
  return lines;
}

/** an axis in points covering every mark, interval and 0, with ticks at a round step (5, 10, 20 …) */
export function gainAxis(lines: readonly GainLine[]): { lo: number; hi: number; ticks: number[] } {
  const xs = [0];
  for (const l of lines) {
    if (l.paper !== null) xs.push(l.paper);
    for (const m of [l.lab, l.mine]) if (m) {
      xs.push(m.mean, ...m.seeds.map((s) => s.gain));
      if (m.ci95) xs.push(m.ci95.lo, m.ci95.hi);
    }
  }
  return roundAxis(xs);
}

/** one compared pair on the differences' forest plot: the lab's test, the user's, and the paper's difference */
export interface PairLine {
  label: string;
  lab: GainPair | null;
  mine: GainPair | null;
  /** the paper's gain of higher − lower (null: it reports no number for one side) */
  paper: number | null;
}

/** the pairs a finding compares, each with the lab's standard test, the user's own and the paper's difference */
export function pairLines(f: Finding, lab: GainTable | null, mine: GainTable | null): PairLine[] {
  const paperOf = (ref: CellRef) =>
    ref === 'start'
      ? 0
      : (() => {
          const c = f.cells.find((x) => x.row === ref[0] && x.col === ref[1]);
          return c ? paperGain(f, c) : null;
        })();
  return f.compares.pairs.map(([hi, lo], i) => {
    const [a, b] = [paperOf(hi), paperOf(lo)];
    const l = lab?.compares.pairs[i] ?? null;
    const m = mine?.compares.pairs[i] ?? null;
    const name = (ref: CellRef) => (ref === 'start' ? 'the SFT start' : `${ref[0]} · ${ref[1]}`);
    // '1.5B: Curriculum > Sum', 'Sum: 7B > 1.5B' — the shared part named once, so pairs at other scales stay apart
    const [x, y] = shortLabels(name(hi), name(lo));
    const shared =
      x === name(hi)
        ? ''
        : (name(hi)
            .split(' · ')
            .find((part) => part !== x && name(lo).split(' · ').includes(part)) ?? '');
    return {
      label: `${shared ? `${shared}: ` : ''}${x} > ${y}`,
      lab: l,
      mine: m,
      paper: a === null || b === null ? null : Math.round(10 * (a - b)) / 10,
    };
  });
}

/** an axis in points over the pairs' differences, intervals, paper differences and 0 */
export function pairAxis(lines: readonly PairLine[]): { lo: number; hi: number; ticks: number[] } {
  const xs = [0];
  for (const l of lines) {
    if (l.paper !== null) xs.push(l.paper);
    // the drawn interval is the one at the call's level (wider than the 95 % one under Holm)
    for (const p of [l.lab, l.mine])
      if (p?.difference != null) xs.push(p.difference, ...[p.ci95, p.interval].flatMap((i) => (i ? [i.lo, i.hi] : [])));
  }
  return roundAxis(xs);
}

/** the interactions' forest's axis: 0, the paper's values and every interval */
export function interactionAxis(
  xs: readonly {
    difference: number | null;
    ci95: { lo: number; hi: number } | null;
    interval?: { lo: number; hi: number } | null;
    paper: number | null;
  }[],
): { lo: number; hi: number; ticks: number[] } {
  return roundAxis([
    0,
    ...xs.flatMap((x) =>
      [x.paper, x.difference, x.ci95?.lo, x.ci95?.hi, x.interval?.lo, x.interval?.hi].filter(
        (v): v is number => typeof v === 'number',
      ),
    ),
  ]);
}

function roundAxis(xs: number[]): { lo: number; hi: number; ticks: number[] } {
  const finite = xs.filter(Number.isFinite);
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (hi - lo < 10) { const mid = (hi + lo) / 2; lo = mid - 5; hi = mid + 5; }
  const step = [1, 2, 5, 10, 20, 25, 50].find((s) => (hi - lo) / s <= 8) ?? 100;
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let t = lo; t <= hi + 1e-9; t += step) ticks.push(Math.round(t * 1000) / 1000);
  return { lo, hi, ticks };
}
