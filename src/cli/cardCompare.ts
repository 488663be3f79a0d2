// Comparing SFT cards and evaluations (evaluate, repro): exact equality, because greedy decoding of
// the same weights on the same backend is deterministic, so any difference is a real one.
import type { EvaluationFigures, SftCard } from '../rl/checkpointFiles.ts';

/** figures as computed (NaN where undefined) or as a card stores them (JSON writes NaN as null) */
export type Figures = { [K in keyof EvaluationFigures]: number | null };

export const FIGURE_ROWS: [string, keyof EvaluationFigures][] = [
  ['delivery', 'delivery'], ['success (final pass rate)', 'success'],
  ['commonsense micro', 'commonsenseMicro'], ['commonsense macro', 'commonsenseMacro'],
  ['hard micro', 'hardMicro'], ['hard macro', 'hardMacro'], ['tool-QA (OOD) accuracy', 'oodAccuracy'],
  ['calls that parse', 'callParseRate'], ['mean tool calls', 'meanCalls'], ['mean tokens', 'meanTokens'],
  ['queries', 'queries'], ['tool-QA tasks', 'toolQaTasks'],
];

function defined(x: number | null): number | null {
  return x === null || Number.isNaN(x) ? null : x;
}

export function sameFigure(a: number | null, b: number | null): boolean {
  return defined(a) === defined(b);
}

export function sameFigures(a: Figures, b: Figures): boolean {
  return FIGURE_ROWS.every(([, k]) => sameFigure(a[k], b[k]));
}

export function showFigure(x: number | null): string {
  const d = defined(x);
  return d === null ? 'n/a' : Number.isInteger(d) ? String(d) : d.toFixed(4);
}

export interface CardRow {
  what: string;
  shipped: string;
  rerun: string;
  same: boolean;
}

export interface CardComparison {
  rows: CardRow[];
  weightsSame: boolean;
  /** every figure of both evaluations and every verdict-check query */
  evaluationSame: boolean;
}

/** a shipped card against the card of its rerun: weights, final loss, both evaluations, the verdict check */
export function compareCards(shipped: SftCard, rerun: SftCard): CardComparison {
  const rows: CardRow[] = [];
  const weightsSame = shipped.weights.sha256 === rerun.weights.sha256 && shipped.weights.bytes === rerun.weights.bytes;
  rows.push({
    what: 'weights SHA-256',
    shipped: `${shipped.weights.sha256.slice(0, 16)}…`,
    rerun: `${rerun.weights.sha256.slice(0, 16)}…`,
    same: weightsSame,
  });
  rows.push({
    what: 'final loss',
    shipped: showFigure(shipped.finalLoss),
    rerun: showFigure(rerun.finalLoss),
    same: shipped.finalLoss === rerun.finalLoss,
  });
  let evaluationSame = true;
  for (const decoding of ['free', 'constrained'] as const) {
    for (const [label, k] of FIGURE_ROWS) {
      const a = shipped.evaluation[decoding][k];
      const b = rerun.evaluation[decoding][k];
      const same = sameFigure(a, b);
      evaluationSame &&= same;
      rows.push({ what: `${decoding}: ${label}`, shipped: showFigure(a), rerun: showFigure(b), same });
    }
  }
  const key = (q: SftCard['verdictCheck']['queries'][number]) => JSON.stringify(q);
  const a = shipped.verdictCheck.queries;
  const b = rerun.verdictCheck.queries;
  const matching = a.filter((q, i) => b[i] !== undefined && key(q) === key(b[i])).length;
  const checkSame = a.length === b.length && matching === a.length;
  evaluationSame &&= checkSame;
  rows.push({
    what: 'verdict check (queries alike)',
    shipped: String(a.length),
    rerun: `${matching}/${b.length}`,
    same: checkSame,
  });
  return { rows, weightsSame, evaluationSame };
}

export function comparisonTable(rows: readonly CardRow[], headers: [string, string] = ['shipped', 'rerun']): string {
  const w = Math.max(...rows.map((r) => r.what.length), 6) + 2;
  const c = Math.max(...rows.flatMap((r) => [r.shipped.length, r.rerun.length]), ...headers.map((h) => h.length)) + 2;
  const lines = [`${''.padEnd(w)}${headers[0].padStart(c)}${headers[1].padStart(c)}`];
  for (const r of rows)
    lines.push(`${r.what.padEnd(w)}${r.shipped.padStart(c)}${r.rerun.padStart(c)}${r.same ? '' : '   ≠'}`);
  return lines.join('\n');
}
