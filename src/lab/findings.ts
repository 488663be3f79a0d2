// The seven findings of the Agent-STAR study (DESIGN §1) as grids the lab can run: for each, the
// paper's claim and numbers, the configs of its cells (one lab config per cell, the rest defaults),
// and the table shape the paper reports it in. The CLI's `sweep` and the page's Findings read this.
// No tfjs, no DOM.
import { defaultConfig, type LabConfig } from './config.ts';

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
  /** a test of the paper's direction on a filled table (the lab's or the paper's); returns a sentence */
  direction: (t: (row: string, col: string) => number | undefined) => { agrees: boolean | null; sentence: string };
}

const SCALES = [['s', '1.5B'], ['m', '3B'], ['l', '7B']] as const;
const REWARDS = [['sum', 'Sum'], ['macro', 'Macro'], ['success', 'Success'], ['curriculum', 'Curriculum']] as const;
const ALGOS = [['grpo', 'GRPO'], ['dapo', 'DAPO'], ['arpo', 'ARPO']] as const;

const fmt = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(1));

/** T1 (rows scale, cols reward) — the paper: 1.5B 34.9 and 3B 49.9 with Curriculum, 7B 62.8 with Sum; Sum 33.1 at 1.5B */
const T1_PAPER: Record<string, Partial<Record<string, number>>> = {
  '1.5B': { Sum: 33.1, Curriculum: 34.9 }, '3B': { Curriculum: 49.9 }, '7B': { Sum: 62.8 },
};

function bestCol(t: (r: string, c: string) => number | undefined, row: string, cols: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const c of cols) {
    const v = t(row, c);
    if (v !== undefined && Number.isFinite(v) && (best === undefined || v > t(row, best)!)) best = c;
  }
  return best;
}

export const FINDINGS: Finding[] = [
  {
    id: 'T1', title: 'The best reward depends on scale',
    claim: '1.5B and 3B do best with the Curriculum reward (34.9 %, 49.9 %), 7B with dense Sum (62.8 %); sparse Success is never best.',
    rows: SCALES.map(([, l]) => l), cols: REWARDS.map(([, l]) => l), base: {}, markBest: 'row',
    cells: SCALES.flatMap(([scale, row]) => REWARDS.map(([reward, col]) => ({ row, col, config: { scale, reward }, metric: 'success' as const, paper: T1_PAPER[row]?.[col] }))),
    direction: (t) => {
      const bests = SCALES.map(([, r]) => bestCol(t, r, REWARDS.map(([, c]) => c)));
      if (bests.some((b) => b === undefined)) return { agrees: null, sentence: 'Not every scale has a result yet.' };
      const successNeverBest = bests.every((b) => b !== 'Success');
      const denseAtLarge = bests[2] === 'Sum' || bests[2] === 'Curriculum';
      return { agrees: successNeverBest && denseAtLarge, sentence: `Best reward per scale: ${bests.join(' / ')} (paper: Curriculum / Curriculum / Sum); Success ${successNeverBest ? 'is never' : 'is'} best.` };
    },
  },
  {
    id: 'T2', title: 'Dense rewards cost out-of-domain ability',
    claim: 'At 7B, Sum-reward RL drops OOD accuracy below the SFT model (36.7 % vs 41.9 %); Macro keeps it (42.9 %).',
    rows: ['SFT', 'Sum', 'Macro'], cols: ['in-domain', 'OOD'], base: { scale: 'l' }, markBest: 'none',
    cells: [
      { row: 'SFT', col: 'in-domain', config: null, metric: 'success', paper: 19.7 },
      { row: 'SFT', col: 'OOD', config: null, metric: 'ood', paper: 41.9 },
      { row: 'Sum', col: 'in-domain', config: { reward: 'sum' }, metric: 'success', paper: 62.8 },
      { row: 'Sum', col: 'OOD', config: { reward: 'sum' }, metric: 'ood', paper: 36.7 },
      { row: 'Macro', col: 'in-domain', config: { reward: 'macro' }, metric: 'success' },
      { row: 'Macro', col: 'OOD', config: { reward: 'macro' }, metric: 'ood', paper: 42.9 },
    ],
    direction: (t) => {
      const [sft, sum, macro] = ['SFT', 'Sum', 'Macro'].map((r) => t(r, 'OOD'));
      if (sft === undefined || sum === undefined || macro === undefined) return { agrees: null, sentence: 'Not every run has finished yet.' };
      return { agrees: sum < sft && macro >= sum, sentence: `OOD: SFT ${fmt(sft)}, after Sum ${fmt(sum)}, after Macro ${fmt(macro)} (paper: 41.9 → 36.7 with Sum, 42.9 with Macro).` };
    },
  },
  {
    id: 'T3', title: 'Scaling helps, by an amount that depends on the reward',
    claim: 'With Sum, success rises from 33.1 % at 1.5B to 62.8 % at 7B; the gain differs by reward.',
    rows: REWARDS.map(([, l]) => l), cols: SCALES.map(([, l]) => l), base: {}, markBest: 'none',
    cells: REWARDS.flatMap(([reward, row]) => SCALES.map(([scale, col]) => ({ row, col, config: { scale, reward }, metric: 'success' as const, paper: T1_PAPER[col]?.[row] }))),
    direction: (t) => {
      const gains = REWARDS.map(([, r]) => { const a = t(r, '1.5B'); const b = t(r, '7B'); return a === undefined || b === undefined ? undefined : b - a; });
      if (gains.some((g) => g === undefined)) return { agrees: null, sentence: 'Not every run has finished yet.' };
      const up = gains.filter((g) => g! > 0).length;
      return { agrees: up >= 3, sentence: `7B − 1.5B success gain per reward: ${REWARDS.map(([, r], i) => `${r} ${fmt(gains[i])}`).join(', ')} (paper: Sum +29.7).` };
    },
  },
  {
    id: 'T4', title: 'A data sweet spot near 1K queries',
    claim: '100 → 1K queries: 37.5 → 49.9 %; 2K adds only 0.9 % in-domain while OOD falls from 35.0 to 32.2 %.',
    rows: ['in-domain', 'OOD'], cols: ['100', '1000', '2000'], base: { scale: 'm', reward: 'curriculum' }, markBest: 'none',
    cells: (['100', '1000', '2000'] as const).flatMap((col) => (['in-domain', 'OOD'] as const).map((row) => ({
      row, col, config: { trainSize: Number(col) }, metric: row === 'OOD' ? 'ood' as const : 'success' as const,
      paper: row === 'in-domain' ? ({ '100': 37.5, '1000': 49.9, '2000': 50.8 } as Record<string, number>)[col] : ({ '1000': 35.0, '2000': 32.2 } as Record<string, number | undefined>)[col],
    }))),
    direction: (t) => {
      const [a, b, c] = ['100', '1000', '2000'].map((col) => t('in-domain', col));
      if (a === undefined || b === undefined || c === undefined) return { agrees: null, sentence: 'Not every run has finished yet.' };
      return { agrees: b > a && c - b < b - a, sentence: `Success 100 / 1K / 2K queries: ${fmt(a)} / ${fmt(b)} / ${fmt(c)} (paper 37.5 / 49.9 / 50.8).` };
    },
  },
  {
    id: 'T5', title: 'Hard-only data collapses',
    claim: 'Training on hard queries only reaches 25.9 %; the mixed 4:3:3 set reaches 49.9 % (3B).',
    rows: ['success'], cols: ['4:3:3', 'hard only'], base: { scale: 'm', reward: 'curriculum' }, markBest: 'row',
    cells: [
      { row: 'success', col: '4:3:3', config: { mix: [4, 3, 3] }, metric: 'success', paper: 49.9 },
      { row: 'success', col: 'hard only', config: { mix: [0, 0, 1] }, metric: 'success', paper: 25.9 },
    ],
    direction: (t) => {
      const [mixed, hard] = [t('success', '4:3:3'), t('success', 'hard only')];
      if (mixed === undefined || hard === undefined) return { agrees: null, sentence: 'Not every run has finished yet.' };
      return { agrees: hard < mixed, sentence: `Mixed 4:3:3 ${fmt(mixed)} vs hard-only ${fmt(hard)} (paper 49.9 vs 25.9).` };
    },
  },
  {
    id: 'T6', title: 'Exploration helps less as the model grows',
    claim: 'GRPO / DAPO / ARPO: 1.5B 30.1 / 36.9 / 37.5, 3B 48.2 / 45.6 / 47.5, 7B 62.8 / 58.4 / 58.3; ARPO costs ~1.5× GRPO’s GPU time.',
    rows: SCALES.map(([, l]) => l), cols: ALGOS.map(([, l]) => l), base: { reward: 'sum' }, markBest: 'row',
    cells: SCALES.flatMap(([scale, row]) => ALGOS.map(([algorithm, col], j) => ({ row, col, config: { scale, algorithm }, metric: 'success' as const,
      paper: ({ '1.5B': [30.1, 36.9, 37.5], '3B': [48.2, 45.6, 47.5], '7B': [62.8, 58.4, 58.3] } as Record<string, number[]>)[row][j] }))),
    direction: (t) => {
      const edge = SCALES.map(([, r]) => { const g = t(r, 'GRPO'); const e = Math.max(t(r, 'DAPO') ?? -Infinity, t(r, 'ARPO') ?? -Infinity); return g === undefined || !Number.isFinite(e) ? undefined : e - g; });
      if (edge.some((e) => e === undefined)) return { agrees: null, sentence: 'Not every run has finished yet.' };
      return { agrees: edge[0]! > edge[2]!, sentence: `Best of DAPO/ARPO minus GRPO: ${SCALES.map(([, r], i) => `${r} ${fmt(edge[i])}`).join(', ')} (paper: +7.4, −0.7, −4.4).` };
    },
  },
  {
    id: 'T7', title: 'Tool failures: 5 % is tolerated, 10 % degrades training',
    claim: 'With 5 % random tool errors training is as good; at 10 % failed calls starve the reward and success drops.',
    rows: ['success'], cols: ['0 %', '5 %', '10 %'], base: { scale: 'm', reward: 'curriculum' }, markBest: 'none',
    cells: ([['0 %', 0], ['5 %', 0.05], ['10 %', 0.1]] as const).map(([col, rate]) => ({ row: 'success', col, config: { toolFailureRate: rate }, metric: 'success' as const })),
    direction: (t) => {
      const [a, b, c] = ['0 %', '5 %', '10 %'].map((col) => t('success', col));
      if (a === undefined || b === undefined || c === undefined) return { agrees: null, sentence: 'Not every run has finished yet.' };
      return { agrees: c < a && a - b < a - c, sentence: `Success at 0 / 5 / 10 % tool failures: ${fmt(a)} / ${fmt(b)} / ${fmt(c)}.` };
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
