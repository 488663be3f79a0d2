// A finding's table of one run a cell, filled with results (the CLI's quick sweep, the page's own runs): each
// cell's lab value (%), the paper's number beside it, the best cell of each row marked where the paper marks
// one, and a sentence that describes what the runs measured. It makes no call on the paper's direction: a
// single run's end moves by several points from seed to seed, so one run a cell cannot tell an effect from
// noise (the standard tables, findingGains.ts, call it from many seeds). Pure: no tfjs, no DOM, no fs.
import type { LabConfig } from '../lab/config.ts';
import { cellConfig, type Finding } from './findings.ts';
import { wilson } from '../stats/intervals.ts';

/** evaluation figures of a run at its start (the SFT checkpoint) or end, fractions in [0, 1] */
export interface RunFigures {
  success: number;
  delivery: number;
  csMicro: number;
  hardMicro: number;
  ood: number;
  /** the 95 % Wilson interval of (greedy) success, over `queries` held-out queries (absent from older runs, which
   * recorded no evaluation size) */
  successLo?: number;
  successHi?: number;
  queries?: number;
  /** success of `samples` samples per query at the training temperature (pass@1 averaged over them), with its
   *  conservative 95 % interval (stats/intervals.ts wilsonOfMeans); NaN when the run evaluated greedily only */
  sampleSuccess?: number;
  sampleSuccessLo?: number;
  sampleSuccessHi?: number;
  samples?: number;
}

/** what the table needs of a finished run */
export interface RunResult {
  start: RunFigures;
  final: RunFigures;
  wallSeconds: number;
  /** folder or id of the run */
  where: string;
  /** unseen tool-QA tasks of its OOD evaluation (the n of an OOD cell's interval; absent: no interval shown) */
  oodTasks?: number;
}

export interface TableCell {
  row: string;
  col: string;
  /** the lab's value in %, null while the run is missing */
  lab: number | null;
  /** what the cell shows: in-domain success or OOD accuracy */
  metric?: 'success' | 'ood';
  paper: number | null;
  best: boolean;
  /** the run's in-domain success and OOD accuracy at start and end (%) */
  run: {
    where: string;
    successStart: number;
    successFinal: number;
    oodStart: number;
    oodFinal: number;
    wallSeconds: number;
    /** the shown end value's evaluation size and 95 % Wilson interval (%), where known */
    n?: number;
    lo?: number;
    hi?: number;
  } | null;
}

/** the world a table's runs trained and were judged in (their SFT starts'), or null where the starts disagree */
export interface TableWorld {
  size: string;
  seed: number;
}

/** who made a table and how: the command, the build, the backend, the settings its runs share, the world */
export interface TableStamp {
  command: string;
  commit: string;
  /** files that differed from `commit` when the table was written (only with --allow-dirty; path and SHA-256, null:
   * deleted) */
  dirtyFiles?: { path: string; sha256: string | null }[];
  date: string;
  backend: string;
  common: Partial<LabConfig>;
  /** the world the runs trained in, their SFT starts' (absent in older tables, and on the page) */
  world?: TableWorld | null;
}

export interface FindingTable extends TableStamp {
  format: typeof FINDING_TABLE_FORMAT;
  id: string;
  title: string;
  claim: string;
  rows: string[];
  cols: string[];
  cells: TableCell[];
  /** what the runs measured, in the paper's terms: a description, never a call */
  description: string;
  sweepSeconds: number;
  /** a table written as /1 (which called a direction) and described again from its own cells: by what, when
   *  (its cells and the stamp above stay the sweep's) */
  redescribed?: {
    command: string;
    commit: string;
    date: string;
    dirtyFiles?: { path: string; sha256: string | null }[];
  };
}

const pct = (x: number) => Math.round(1000 * x) / 10;

/** /2: one run a cell is described (`description`), no longer called (/1's `direction` said "agrees with the paper") */
export const FINDING_TABLE_FORMAT = 'star-lab-finding-table/2';

/** the sentence every table of one run a cell carries in place of a call */
export const ONE_RUN_NO_CALL =
  "One run a cell: this describes what each run measured and makes no call on the paper's direction — a single run's end moves by several points from seed to seed; the standard table (results/findings) tests it over many seeds.";

export function findingTable(
  f: Finding,
  lookup: (lab: LabConfig) => RunResult | undefined,
  meta: Omit<FindingTable, 'format' | 'id' | 'title' | 'claim' | 'rows' | 'cols' | 'cells' | 'description'>,
): FindingTable {
  // the SFT cells read the start figures of any run of the finding (all start from the same checkpoint)
  const anyRun = f.cells
    .map((c) => cellConfig(f, c, meta.common))
    .flatMap((lab) => (lab ? [lookup(lab)] : []))
    .find((r) => r !== undefined);
  const cells: TableCell[] = f.cells.map((cell) => {
    const lab = cellConfig(f, cell, meta.common);
    const r = lab ? lookup(lab) : anyRun;
    const figures = r ? (lab ? r.final : r.start) : undefined;
    const value = figures ? (cell.metric === 'ood' ? figures.ood : figures.success) : undefined;
    return {
      row: cell.row,
      col: cell.col,
      metric: cell.metric,
      lab: value !== undefined && Number.isFinite(value) ? pct(value) : null,
      paper: cell.paper ?? null,
      best: false,
      run:
        r && lab
          ? {
              where: r.where,
              successStart: pct(r.start.success),
              successFinal: pct(r.final.success),
              oodStart: pct(r.start.ood),
              oodFinal: pct(r.final.ood),
              wallSeconds: r.wallSeconds,
              ...endInterval(value, cell.metric === 'ood' ? r.oodTasks : r.final.queries),
            }
          : null,
    };
  });
  if (f.markBest === 'row') {
    for (const row of f.rows) {
      const inRow = cells.filter((c) => c.row === row && c.lab !== null);
      const top = Math.max(...inRow.map((c) => c.lab!));
      for (const c of inRow) c.best = c.lab === top;
    }
  }
  const at = (row: string, col: string) => cells.find((c) => c.row === row && c.col === col)?.lab ?? undefined;
  return {
    format: FINDING_TABLE_FORMAT,
    id: f.id,
    title: f.title,
    claim: f.claim,
    rows: f.rows,
    cols: f.cols,
    cells,
    description: f.describe(at),
    ...meta,
  };
}

/**
 * A committed table of format /1 as /2: its cells, paper figures and stamp as the sweep wrote them, its
 * direction call dropped and the description computed again from its own cells (as `findingTable` would
 * from the same runs). For tables whose runs started from SFT weights no longer shipped, which no sweep can
 * read again.
 */
export function redescribedTable(
  f: Finding,
  old: Omit<FindingTable, 'format' | 'description' | 'redescribed'> & { format: string; direction?: unknown },
  redescribed: NonNullable<FindingTable['redescribed']>,
): FindingTable {
  if (old.id !== f.id) throw new Error(`a table of ${old.id}, not ${f.id}`);
  if (old.format !== 'star-lab-finding-table/1')
    throw new Error(`${f.id}: format ${old.format}, not star-lab-finding-table/1`);
  const { direction: _called, format: _old, ...kept } = old;
  const at = (row: string, col: string) => kept.cells.find((c) => c.row === row && c.col === col)?.lab ?? undefined;
  return { ...kept, format: FINDING_TABLE_FORMAT, description: f.describe(at), redescribed };
}

/** n and the 95 % Wilson interval (%) of an end value measured on n items (nothing when n is unknown) */
function endInterval(value: number | undefined, n: number | undefined): { n?: number; lo?: number; hi?: number } {
  if (value === undefined || !Number.isFinite(value) || n === undefined || !(n > 0)) return {};
  const iv = wilson(Math.round(value * n), n);
  return { n, lo: pct(iv.lo), hi: pct(iv.hi) };
}

export function tableMarkdown(t: FindingTable): string {
  const cell = (c: TableCell | undefined) => {
    if (!c) return '';
    const lab = c.lab === null ? '…' : c.best ? `**${c.lab.toFixed(1)}**` : c.lab.toFixed(1);
    // the run's own start (its SFT checkpoint at step 0) beside its end, so a fall reads as a fall
    const start = c.run && c.lab !== null ? (c.metric === 'ood' ? c.run.oodStart : c.run.successStart) : null;
    const interval =
      c.run?.lo !== undefined && c.run.hi !== undefined && c.lab !== null
        ? ` [${c.run.lo.toFixed(1)}, ${c.run.hi.toFixed(1)}]`
        : '';
    const shown =
      start !== null && Number.isFinite(start) ? `${start.toFixed(1)} → ${lab}${interval}` : `${lab}${interval}`;
    return c.paper === null ? shown : `${shown} (${c.paper.toFixed(1)})`;
  };
  const lines = [
    ...gridMarkdown(t, cell),
    '',
    `Lab value in %, the SFT start → after RL (paper's in parentheses; ${t.cells.some((c) => c.best) ? 'bold: best of the row; ' : ''}… = not run yet).`,
    ...sizesLine(t),
    `Measured: ${t.description}`,
    '',
    ONE_RUN_NO_CALL,
    '',
    madeByMarkdown(t, `${Math.round(t.sweepSeconds / 60)} min`),
    ...(t.redescribed
      ? [
          '',
          `Described again from these cells, without the call the sweep made, by \`${t.redescribed.command}\` at commit ${t.redescribed.commit.slice(0, 10)} on ${t.redescribed.date.slice(0, 10)}.`,
        ]
      : []),
  ];
  return lines.join('\n');
}

/** the evaluation sizes behind the intervals: one run, one evaluation, so the interval is of that evaluation alone */
function sizesLine(t: FindingTable): string[] {
  const sizes = (metric: 'success' | 'ood') =>
    [
      ...new Set(
        t.cells.filter((c) => (c.metric ?? 'success') === metric && c.run?.n !== undefined).map((c) => c.run!.n!),
      ),
    ].sort((a, b) => a - b);
  const parts = [sizes('success').length ? `success on n = ${sizes('success').join(' / ')} validation queries` : '',
    sizes('ood').length ? `OOD accuracy on n = ${sizes('ood').join(' / ')} unseen tool-QA tasks` : ''].filter(Boolean);
  return parts.length
    ? [
        `One seed a cell: ${parts.join(', ')}; in brackets the end value's 95 % Wilson interval (that evaluation's sampling error only, not the seed-to-seed spread the standard tables measure).`,
      ]
    : [];
}

/**
 * The Markdown a findings table opens with (this table's and the seed-gain table's, findingGains.ts):
 * its title, the paper's claim and the grid, one row a line, each cell's text from `cell`.
 */
export function gridMarkdown<C extends { row: string; col: string }>(
  t: {
    id: string;
    title: string;
    claim: string;
    rows: readonly string[];
    cols: readonly string[];
    cells: readonly C[];
  },
  cell: (c: C | undefined) => string,
): string[] {
  return [
    `### ${t.id}: ${t.title}`,
    '',
    `Paper: ${t.claim}`,
    '',
    `| | ${t.cols.join(' | ')} |`,
    `|---|${t.cols.map(() => '---').join('|')}|`,
    ...t.rows.map(
      (r) => `| ${r} | ${t.cols.map((c) => cell(t.cells.find((x) => x.row === r && x.col === c))).join(' | ')} |`,
    ),
  ];
}

/** the line a findings table's Markdown closes with: the command that made it, where, from which commit, when, and its
 * cost */
export function madeByMarkdown(t: Omit<TableStamp, 'common'>, cost: string): string {
  const world =
    t.world === undefined
      ? ''
      : t.world === null
        ? ' · runs from starts of different worlds'
        : ` · the ${t.world.size} world (seed ${t.world.seed})`;
  const dirty = t.dirtyFiles?.length
    ? ` + ${t.dirtyFiles.length} uncommitted file${t.dirtyFiles.length > 1 ? 's' : ''} (listed with their SHA-256 in table.json)`
    : '';
  return `\`${t.command}\` · ${t.backend}${world} · commit ${t.commit.slice(0, 10)}${dirty} · ${t.date.slice(0, 10)} · ${cost}`;
}
