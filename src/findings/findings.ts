// The seven findings of the Agent-STAR study as grids the lab can run: for each, the
// paper's claim and numbers, the configs of its cells (one lab config per cell, the rest defaults),
// and the table shape the paper reports it in. The CLI's `sweep` and the page's Findings read this.
// No tfjs, no DOM.
import { defaultConfig, type LabConfig } from '../lab/config.ts';

export type FindingId = 'T1' | 'T2' | 'T3' | 'T4' | 'T5' | 'T6' | 'T7';

/** which figure a cell of the table shows */
export type CellMetric = 'success' | 'ood';

export interface FindingCell {
  row: string;
  col: string;
  /** the settings of this cell's run (over the finding's base); null: the SFT start itself (no RL run) */
  config: Partial<LabConfig> | null;
  metric: CellMetric;
  /** the paper's number for this cell (test success or OOD, %), when it reports one */
  paper?: number;
}

export interface Finding {
  id: FindingId;
  title: string;
  /** the paper's claim, one sentence */
  claim: string;
  rows: string[];
  cols: string[];
  /** settings every cell shares */
  base: Partial<LabConfig>;
  cells: FindingCell[];
  /** which way a row's best column is judged: 'max' marks the best cell of each row */
  markBest: 'row' | 'none';
  /** the cells whose gains the claim orders (the standard tables' direction call reads their intervals) */
  compares: Comparison;
  /** what a table of one run a cell measured, in the paper's terms, as a sentence (the quick tables, your own runs):
   *  a description, never a call — one run a cell cannot tell an effect from seed-to-seed noise */
  describe: (t: (row: string, col: string) => number | undefined) => string;
}

/** a cell of a finding's table by its row and column, or 'start': the SFT start itself (a gain of 0) */
export type CellRef = readonly [row: string, col: string] | 'start';

/** which cells a claim orders: in each pair the first gains more than the second; `doc` says why in one line */
export interface Comparison {
  doc: string;
  pairs: readonly (readonly [higher: CellRef, lower: CellRef])[];
  /** the claim's scale × choice interactions (a finding whose claim is that a difference changes with scale) */
  interactions?: readonly Interaction[];
}

/** a cell by its row and column */
export type CellAt = readonly [row: string, col: string];

/**
 * One interaction the claim makes: the difference (plus[0] − plus[1]) − (minus[0] − minus[1]) over four
 * independent cells, written so that the paper claims it is positive (e.g. ARPO − GRPO larger at 1.5B than at
 * 7B). Declared from the paper's claim, never from the lab's values.
 */
export interface Interaction {
  plus: readonly [CellAt, CellAt];
  minus: readonly [CellAt, CellAt];
  /** why the paper claims it positive, and what its own numbers say of its size, one line */
  why: string;
}

/** the paper's SFT column per scale (in-domain success, %; its tables' base: a cell's paper gain is paper − this) */
export const PAPER_SFT_SUCCESS: Readonly<Record<string, number>> = { s: 6.9, m: 12.2, l: 19.7 };
/** the paper's SFT OOD accuracy (%), reported at 7B only */
export const PAPER_SFT_OOD: Readonly<Record<string, number>> = { l: 41.9 };

const SCALES = [['s', '1.5B'], ['m', '3B'], ['l', '7B']] as const;
const REWARDS = [['sum', 'Sum'], ['macro', 'Macro'], ['success', 'Success'], ['curriculum', 'Curriculum']] as const;
const ALGOS = [['grpo', 'GRPO'], ['dapo', 'DAPO'], ['arpo', 'ARPO']] as const;

const fmt = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(1));

/** T1 (rows scale, cols reward) — the paper: 1.5B 34.9 and 3B 49.9 with Curriculum, 7B 62.8 with Sum; Sum 33.1 at
 * 1.5B */
const T1_PAPER: Record<string, Partial<Record<string, number>>> = {
  '1.5B': { Sum: 33.1, Curriculum: 34.9 }, '3B': { Curriculum: 49.9 }, '7B': { Sum: 62.8 },
};

function bestCol(
  t: (r: string, c: string) => number | undefined,
  row: string,
  cols: readonly string[],
): string | undefined {
  let best: string | undefined;
  for (const c of cols) {
    const v = t(row, c);
    if (v !== undefined && Number.isFinite(v) && (best === undefined || v > t(row, best)!)) best = c;
  }
  return best;
}

export const FINDINGS: Finding[] = [
  {
    id: 'T1',
    title: 'The best reward depends on scale',
    claim:
      '1.5B and 3B do best with the Curriculum reward (34.9 %, 49.9 %), 7B with dense Sum (62.8 %); sparse Success is never best.',
    rows: SCALES.map(([, l]) => l),
    cols: REWARDS.map(([, l]) => l),
    base: {},
    markBest: 'row',
    cells: SCALES.flatMap(([scale, row]) =>
      REWARDS.map(([reward, col]) => ({
        row,
        col,
        config: { scale, reward },
        metric: 'success' as const,
        paper: T1_PAPER[row]?.[col],
      })),
    ),
    compares: {
      doc: "the paper's best reward of each scale (Curriculum at 1.5B and 3B, Sum at 7B) gains more than each other reward of that scale",
      pairs: SCALES.flatMap(([, r]) => {
        const best = r === '7B' ? 'Sum' : 'Curriculum';
        return REWARDS.filter(([, c]) => c !== best).map(
          ([, c]) =>
            [
              [r, best],
              [r, c],
            ] as const,
        );
      }),
      interactions: [
        {
          plus: [
            ['1.5B', 'Curriculum'],
            ['1.5B', 'Sum'],
          ],
          minus: [
            ['7B', 'Curriculum'],
            ['7B', 'Sum'],
          ],
          why: 'Curriculum beats Sum at 1.5B (34.9 vs 33.1) and Sum is best at 7B, so the interaction exceeds +1.8 (the paper gives no 7B Curriculum figure)',
        },
        {
          plus: [
            ['3B', 'Curriculum'],
            ['3B', 'Sum'],
          ],
          minus: [
            ['7B', 'Curriculum'],
            ['7B', 'Sum'],
          ],
          why: 'Curriculum is best at 3B and Sum at 7B, so the interaction is positive (the paper gives no 3B Sum or 7B Curriculum figure)',
        },
      ],
    },
    describe: (t) => {
      const bests = SCALES.map(([, r]) =>
        bestCol(
          t,
          r,
          REWARDS.map(([, c]) => c),
        ),
      );
      if (bests.some((b) => b === undefined)) return 'Not every scale has a result yet.';
      const successNeverBest = bests.every((b) => b !== 'Success');
      return `Best reward per scale: ${bests.join(' / ')} (paper: Curriculum / Curriculum / Sum); Success ${successNeverBest ? 'is never' : 'is'} best.`;
    },
  },
  {
    id: 'T2',
    title: 'Dense rewards cost out-of-domain ability',
    claim: 'At 7B, Sum-reward RL drops OOD accuracy below the SFT model (36.7 % vs 41.9 %); Macro keeps it (42.9 %).',
    rows: ['SFT', 'Sum', 'Macro'],
    cols: ['in-domain', 'OOD'],
    base: { scale: 'l' },
    markBest: 'none',
    cells: [
      { row: 'SFT', col: 'in-domain', config: null, metric: 'success', paper: 19.7 },
      { row: 'SFT', col: 'OOD', config: null, metric: 'ood', paper: 41.9 },
      { row: 'Sum', col: 'in-domain', config: { reward: 'sum' }, metric: 'success', paper: 62.8 },
      { row: 'Sum', col: 'OOD', config: { reward: 'sum' }, metric: 'ood', paper: 36.7 },
      { row: 'Macro', col: 'in-domain', config: { reward: 'macro' }, metric: 'success' },
      { row: 'Macro', col: 'OOD', config: { reward: 'macro' }, metric: 'ood', paper: 42.9 },
    ],
    compares: {
      doc: 'at 7B, Sum RL loses OOD accuracy (below the start), and Macro keeps more of it than Sum',
      pairs: [
        ['start', ['Sum', 'OOD']],
        [
          ['Macro', 'OOD'],
          ['Sum', 'OOD'],
        ],
      ],
    },
    describe: (t) => {
      const [sft, sum, macro] = ['SFT', 'Sum', 'Macro'].map((r) => t(r, 'OOD'));
      if (sft === undefined || sum === undefined || macro === undefined) return 'Not every run has finished yet.';
      return `OOD: SFT ${fmt(sft)}, after Sum ${fmt(sum)}, after Macro ${fmt(macro)} (paper: 41.9 → 36.7 with Sum, 42.9 with Macro).`;
    },
  },
  {
    id: 'T3',
    title: 'Scaling helps, by an amount that depends on the reward',
    claim: 'With Sum, success rises from 33.1 % at 1.5B to 62.8 % at 7B; the gain differs by reward.',
    rows: REWARDS.map(([, l]) => l),
    cols: SCALES.map(([, l]) => l),
    base: {},
    markBest: 'none',
    cells: REWARDS.flatMap(([reward, row]) =>
      SCALES.map(([scale, col]) => ({
        row,
        col,
        config: { scale, reward },
        metric: 'success' as const,
        paper: T1_PAPER[col]?.[row],
      })),
    ),
    compares: {
      doc: 'a larger model gains more: Sum at 7B over Sum at 1.5B, Curriculum at 3B over Curriculum at 1.5B (the pairs the paper reports)',
      pairs: [
        [
          ['Sum', '7B'],
          ['Sum', '1.5B'],
        ],
        [
          ['Curriculum', '3B'],
          ['Curriculum', '1.5B'],
        ],
      ],
      interactions: [
        {
          plus: [
            ['Sum', '7B'],
            ['Sum', '1.5B'],
          ],
          minus: [
            ['Curriculum', '7B'],
            ['Curriculum', '1.5B'],
          ],
          why: "Curriculum leads Sum at 1.5B (by 1.8) and Sum leads at 7B, so scaling 1.5B → 7B helps Sum more, by over +1.8 (T1's first interaction, rearranged; the paper gives Sum +29.7 and no 7B Curriculum figure)",
        },
      ],
    },
    describe: (t) => {
      const gains = REWARDS.map(([, r]) => {
        const a = t(r, '1.5B');
        const b = t(r, '7B');
        return a === undefined || b === undefined ? undefined : b - a;
      });
      if (gains.some((g) => g === undefined)) return 'Not every run has finished yet.';
      return `7B − 1.5B success gain per reward: ${REWARDS.map(([, r], i) => `${r} ${fmt(gains[i])}`).join(', ')} (paper: Sum +29.7).`;
    },
  },
  {
    id: 'T4',
    title: 'A data sweet spot near 1K queries',
    claim: '100 → 1K queries: 37.5 → 49.9 %; 2K adds only 0.9 % in-domain while OOD falls from 35.0 to 32.2 %.',
    rows: ['in-domain', 'OOD'],
    cols: ['100', '1000', '2000'],
    base: { scale: 'm', reward: 'curriculum' },
    markBest: 'none',
    cells: (['100', '1000', '2000'] as const).flatMap((col) =>
      (['in-domain', 'OOD'] as const).map((row) => ({
        row,
        col,
        config: { trainSize: Number(col) },
        metric: row === 'OOD' ? ('ood' as const) : ('success' as const),
        paper:
          row === 'in-domain'
            ? ({ '100': 37.5, '1000': 49.9, '2000': 50.8 } as Record<string, number>)[col]
            : ({ '1000': 35.0, '2000': 32.2 } as Record<string, number | undefined>)[col],
      })),
    ),
    compares: {
      doc: '1K training queries gain more success than 100, and 2K lose OOD accuracy against 1K',
      pairs: [
        [
          ['in-domain', '1000'],
          ['in-domain', '100'],
        ],
        [
          ['OOD', '1000'],
          ['OOD', '2000'],
        ],
      ],
    },
    describe: (t) => {
      const [a, b, c] = ['100', '1000', '2000'].map((col) => t('in-domain', col));
      if (a === undefined || b === undefined || c === undefined) return 'Not every run has finished yet.';
      return `Success 100 / 1K / 2K queries: ${fmt(a)} / ${fmt(b)} / ${fmt(c)} (paper 37.5 / 49.9 / 50.8).`;
    },
  },
  {
    id: 'T5',
    title: 'Hard-only data collapses',
    claim: 'Training on hard queries only reaches 25.9 %; the mixed 4:3:3 set reaches 49.9 % (3B).',
    rows: ['success'],
    cols: ['4:3:3', 'hard only'],
    base: { scale: 'm', reward: 'curriculum' },
    markBest: 'row',
    cells: [
      { row: 'success', col: '4:3:3', config: { mix: [4, 3, 3] }, metric: 'success', paper: 49.9 },
      { row: 'success', col: 'hard only', config: { mix: [0, 0, 1] }, metric: 'success', paper: 25.9 },
    ],
    compares: {
      doc: 'the mixed 4:3:3 set gains more than hard queries only',
      pairs: [
        [
          ['success', '4:3:3'],
          ['success', 'hard only'],
        ],
      ],
    },
    describe: (t) => {
      const [mixed, hard] = [t('success', '4:3:3'), t('success', 'hard only')];
      if (mixed === undefined || hard === undefined) return 'Not every run has finished yet.';
      return `Mixed 4:3:3 ${fmt(mixed)} vs hard-only ${fmt(hard)} (paper 49.9 vs 25.9).`;
    },
  },
  {
    id: 'T6',
    title: 'Exploration helps less as the model grows',
    claim:
      'GRPO / DAPO / ARPO: 1.5B 30.1 / 36.9 / 37.5, 3B 48.2 / 45.6 / 47.5, 7B 62.8 / 58.4 / 58.3; ARPO costs ~1.5× GRPO’s GPU time.',
    rows: SCALES.map(([, l]) => l),
    cols: ALGOS.map(([, l]) => l),
    base: { reward: 'sum' },
    markBest: 'row',
    cells: SCALES.flatMap(([scale, row]) =>
      ALGOS.map(([algorithm, col], j) => ({
        row,
        col,
        config: { scale, algorithm },
        metric: 'success' as const,
        paper: (
          { '1.5B': [30.1, 36.9, 37.5], '3B': [48.2, 45.6, 47.5], '7B': [62.8, 58.4, 58.3] } as Record<string, number[]>
        )[row][j],
      })),
    ),
    compares: {
      doc: 'exploration (DAPO, ARPO) gains more than GRPO at 1.5B and less at 7B',
      pairs: [
        [
          ['1.5B', 'DAPO'],
          ['1.5B', 'GRPO'],
        ],
        [
          ['1.5B', 'ARPO'],
          ['1.5B', 'GRPO'],
        ],
        [
          ['7B', 'GRPO'],
          ['7B', 'DAPO'],
        ],
        [
          ['7B', 'GRPO'],
          ['7B', 'ARPO'],
        ],
      ],
      interactions: [
        {
          plus: [
            ['1.5B', 'DAPO'],
            ['1.5B', 'GRPO'],
          ],
          minus: [
            ['7B', 'DAPO'],
            ['7B', 'GRPO'],
          ],
          why: 'the paper: DAPO − GRPO +6.8 at 1.5B, −4.4 at 7B',
        },
        {
          plus: [
            ['1.5B', 'ARPO'],
            ['1.5B', 'GRPO'],
          ],
          minus: [
            ['7B', 'ARPO'],
            ['7B', 'GRPO'],
          ],
          why: 'the paper: ARPO − GRPO +7.4 at 1.5B, −4.5 at 7B',
        },
      ],
    },
    describe: (t) => {
      const edge = SCALES.map(([, r]) => {
        const g = t(r, 'GRPO');
        const e = Math.max(t(r, 'DAPO') ?? -Infinity, t(r, 'ARPO') ?? -Infinity);
        return g === undefined || !Number.isFinite(e) ? undefined : e - g;
      });
      if (edge.some((e) => e === undefined)) return 'Not every run has finished yet.';
      return `Best of DAPO/ARPO minus GRPO: ${SCALES.map(([, r], i) => `${r} ${fmt(edge[i])}`).join(', ')} (paper: +7.4, −0.7, −4.4).`;
    },
  },
  {
    id: 'T7',
    title: 'Tool failures: 5 % is tolerated, 10 % degrades training',
    claim: 'With 5 % random tool errors training is as good; at 10 % failed calls starve the reward and success drops.',
    rows: ['success'],
    cols: ['0 %', '5 %', '10 %'],
    base: { scale: 'm', reward: 'curriculum' },
    markBest: 'none',
    cells: (
      [
        ['0 %', 0],
        ['5 %', 0.05],
        ['10 %', 0.1],
      ] as const
    ).map(([col, rate]) => ({ row: 'success', col, config: { toolFailureRate: rate }, metric: 'success' as const })),
    compares: {
      doc: '10 % tool failures gain less than none and than 5 % (that 5 % is "as good" is no ordering, so it is not called)',
      pairs: [
        [
          ['success', '0 %'],
          ['success', '10 %'],
        ],
        [
          ['success', '5 %'],
          ['success', '10 %'],
        ],
      ],
    },
    describe: (t) => {
      const [a, b, c] = ['0 %', '5 %', '10 %'].map((col) => t('success', col));
      if (a === undefined || b === undefined || c === undefined) return 'Not every run has finished yet.';
      return `Success at 0 / 5 / 10 % tool failures: ${fmt(a)} / ${fmt(b)} / ${fmt(c)}.`;
    },
  },
];

export function findingById(id: string): Finding {
  const f = FINDINGS.find((x) => x.id === id.toUpperCase());
  if (!f) throw new Error(`unknown finding "${id}" (one of ${FINDINGS.map((x) => x.id).join(', ')})`);
  return f;
}

/** the complete lab config of a cell's run: defaults, the finding's base, the sweep's common settings, the cell */
export function cellConfig(f: Finding, cell: FindingCell, common: Partial<LabConfig> = {}): LabConfig | null {
  if (!cell.config) return null;
  return { ...defaultConfig(), ...f.base, ...common, ...cell.config } as LabConfig;
}

/** a cell's scale (its run's, or the finding's base for an SFT cell) */
function cellScale(f: Finding, cell: FindingCell): string {
  return (cell.config?.scale ?? f.base.scale ?? defaultConfig().scale) as string;
}

/** the paper's gain for a cell over its SFT column (%, one decimal), when it reports the cell and that scale's SFT
 * figure */
export function paperGain(f: Finding, cell: FindingCell): number | null {
  if (cell.paper === undefined) return null;
  if (!cell.config) return 0;
  const sft = (cell.metric === 'ood' ? PAPER_SFT_OOD : PAPER_SFT_SUCCESS)[cellScale(f, cell)];
  return sft === undefined ? null : Math.round(10 * (cell.paper - sft)) / 10;
}

/** the paper's value of an interaction from its own numbers (the cells' gains over the paper's SFT column, which
 *  cancel within a scale), one decimal; null where the paper reports one of the four cells not */
export function paperInteraction(f: Finding, x: Interaction): number | null {
  const gains = [...x.plus, ...x.minus].map(([row, col]) => {
    const cell = f.cells.find((c) => c.row === row && c.col === col);
    if (!cell) throw new Error(`${f.id}: an interaction names the cell "${row} · ${col}", which the finding has not`);
    return paperGain(f, cell);
  });
  if (gains.some((g) => g === null)) return null;
  const [a, b, c, d] = gains as number[];
  return Math.round(10 * (a - b - (c - d))) / 10;
}

/** one null control of a finding: its label (the scale's, e.g. '1.5B', in a finding that spans scales; '' otherwise)
 * and run config */
export interface NullControl { label: string; config: LabConfig }

/**
 * A finding's null controls: its base (and the sweep's common settings) with shuffled advantages, one per
 * scale its cells span. How far RL drifts with no signal depends on the scale (the recipe's 40 steps from
 * the shipped checkpoints: s −11, m −6, l −40 points), so a gain at 7B is read against the 7B drift, not
 * the 3B one. Single-scale findings (T2, T4, T5, T7) have one.
 */
export function nullControls(f: Finding, common: Partial<LabConfig> = {}): NullControl[] {
  const base = { ...defaultConfig(), ...f.base, ...common, advantages: 'shuffled' } as LabConfig;
  // the scales the cells run at (common settings may override the base's; the cell's own axis wins)
  const scales = [...new Set(f.cells.map((c) => (cellConfig(f, c, common) ?? base).scale))];
  const label = (scale: string) => (scales.length === 1 ? '' : SCALES.find(([x]) => x === scale)?.[1] ?? scale);
  return scales.map((scale) => ({ label: label(scale), config: { ...base, scale } }));
}
