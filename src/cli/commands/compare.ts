// `npm run cli -- compare A B …`: runs (or groups of seeds) side by side: their final figures, the difference of
// each from A in final validation success with its 95 % interval, the settings they differ in, and their curves
// as a terminal chart.
import { existsSync } from 'node:fs';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagInt, rejectUnknownFlags } from '../envFlags.ts';
import { findRunFolders, readMetricLines, shownDir, type RunFolder } from '../runFolders.ts';
import { successWithInterval } from './runs.ts';
import { formatDuration } from '../progress.ts';
import { newcombeDifference, tInterval } from '../../stats/intervals.ts';
import { welchTest } from '../../stats/seedStatistics.ts';
import { ema } from '../../lab/metrics.ts';
import { SETTING_KEYS } from '../../lab/config.ts';
import { terminalChart, type ChartSeries } from '../terminalChart.ts';
import type { RlSummary } from '../rlRun.ts';

/** one side of a comparison: a run folder, or a folder of runs (seeds of one setting) */
export interface RunGroup {
  name: string;
  where: string;
  runs: (RunFolder & { summary: RlSummary })[];
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const signed = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}` : 'n/a');

/** the runs `where` names: a run folder, a folder of runs, or folders joined by commas */
export function groupOf(name: string, where: string): RunGroup {
  const dirs = where.split(',').filter(Boolean);
  for (const d of dirs) if (!existsSync(d)) throw new Error(`${name} = ${d}: no such folder`);
  const found = dirs.flatMap((d) => findRunFolders(d));
  const runs = found.filter((r): r is RunFolder & { summary: RlSummary } => r.summary !== null);
  if (runs.length === 0)
    throw new Error(`${name} = ${where}: no finished RL run there${found.length > 0 ? ` (${found.length} unfinished)` : ''}; \`runs ${where}\` lists what it holds`);
  // seeds of one setting, or the comparison would mix settings under one name
  const key = (r: RlSummary) => JSON.stringify(SETTING_KEYS.filter((k) => k !== 'seed').map((k) => r.lab[k]));
  const first = runs[0].summary;
  const other = runs.find((r) => key(r.summary) !== key(first));
  if (other) {
    const differ = SETTING_KEYS.filter((k) => k !== 'seed' && JSON.stringify(first.lab[k]) !== JSON.stringify(other.summary.lab[k]));
    throw new Error(
      `${name} = ${where}: its ${runs.length} runs are not the seeds of one setting (${shownDir(runs[0].dir)} and ${shownDir(other.dir)} ` +
        `differ in ${differ.join(', ')}); name a run folder, or a folder holding one setting's seeds`,
    );
  }
  return { name, where, runs };
}

const finals = (g: RunGroup) => g.runs.map((r) => r.summary.final.success);

/** a group's final success: the run's with its Wilson interval, or the seeds' mean with its t interval */
function successCell(g: RunGroup, which: 'start' | 'final'): string {
  if (g.runs.length === 1) return successWithInterval(g.runs[0].summary[which]);
  const t = tInterval(g.runs.map((r) => r.summary[which].success));
  return `${f3(t.estimate)} [${f3(t.lo)}, ${f3(t.hi)}] (mean of ${t.n})`;
}

/** the difference of `b` from `a` in final validation success, with its interval and the name of the interval */
export function successDifference(a: RunGroup, b: RunGroup): string {
  const head = `${b.name} − ${a.name}, final validation success:`;
  if (a.runs.length >= 2 && b.runs.length >= 2) {
    const w = welchTest(finals(b), finals(a));
    return `${head} ${signed(w.difference)} [${signed(w.lo)}, ${signed(w.hi)}] (95 % Welch t interval over ${b.name}'s ${w.nA} and ${a.name}'s ${w.nB} runs, ` +
      `df ${w.df.toFixed(1)}, p ${w.p < 0.001 ? '< 0.001' : w.p.toFixed(3)}: the seeds' spread, the evaluation's sampling within it)`;
  }
  if (a.runs.length === 1 && b.runs.length === 1) {
    const [sa, sb] = [a.runs[0].summary.final, b.runs[0].summary.final];
    if (!(sa.queries! > 0 && sb.queries! > 0))
      return `${head} ${signed(sb.success - sa.success)} (no interval: a run did not record its evaluation's size)`;
    const passed = (x: typeof sa) => Math.round(x.success * x.queries!);
    const d = newcombeDifference(passed(sb), sb.queries!, passed(sa), sa.queries!);
    return `${head} ${signed(d.estimate)} [${signed(d.lo)}, ${signed(d.hi)}] (95 % Newcombe hybrid score interval over ${b.name}'s ${sb.queries} and ${a.name}'s ${sa.queries} ` +
      `validation queries: the evaluation's sampling only, not seed-to-seed spread; conservative when both ran the same queries. ` +
      `For a claim, compare seed groups: folders of runs)`;
  }
  const [one, many] = a.runs.length === 1 ? [a, b] : [b, a];
  return `${head} ${signed(finals(b).reduce((x, y) => x + y, 0) / b.runs.length - finals(a).reduce((x, y) => x + y, 0) / a.runs.length)} ` +
    `(no interval: ${one.name} is one run and ${many.name} ${many.runs.length}; give each side a folder of at least 2 seeds for Welch's interval)`;
}

/** the settings in which b's first run differs from a's (the seed left out for groups: their runs differ in it) */
export function settingDifferences(a: RunGroup, b: RunGroup): string[] {
  const [la, lb] = [a.runs[0].summary.lab, b.runs[0].summary.lab];
  const seeds = a.runs.length > 1 || b.runs.length > 1;
  return SETTING_KEYS.filter((k) => !(seeds && k === 'seed') && JSON.stringify(la[k]) !== JSON.stringify(lb[k])).map(
    (k) => `${k} ${String(la[k])} → ${String(lb[k])}`,
  );
}

/** a group's curve of one metric: the mean over its runs at each step they all recorded */
function curve(g: RunGroup, metric: string, kind: 'train' | 'eval'): { x: number; y: number }[] {
  const byStep = new Map<number, number[]>();
  for (const r of g.runs)
    for (const l of readMetricLines(r.dir))
      if (l.kind === kind && typeof l[metric] === 'number') byStep.set(l.step, [...(byStep.get(l.step) ?? []), l[metric] as number]);
  return [...byStep.entries()].filter(([, ys]) => ys.length === g.runs.length).sort((p, q) => p[0] - q[0])
    .map(([x, ys]) => ({ x, y: ys.reduce((s, y) => s + y, 0) / ys.length }));
}

const MARKS = ['*', 'o', '+', 'x', '#', '@'];

export function compareText(groups: readonly RunGroup[], width = 60): string {
  const out: string[] = [];
  for (const g of groups)
    out.push(`${g.name} = ${g.where.split(',').map(shownDir).join(', ')}:\n    ${g.runs.length === 1 ? 'one run' : `${g.runs.length} runs (seeds ${g.runs.map((r) => r.summary.lab.seed).join(', ')})`}, ` +
      `${g.runs[0].summary.rl.algorithm.toUpperCase()} at scale ${g.runs[0].summary.lab.scale}, setting ${g.runs[0].summary.hash || '(defaults)'}`);
  const rows: [string, (g: RunGroup) => string][] = [
    ['steps', (g) => [...new Set(g.runs.map((r) => r.summary.steps))].join(', ')],
    ['validation success, start', (g) => successCell(g, 'start')],
    ['validation success, final', (g) => successCell(g, 'final')],
    ['delivery, final', (g) => f3(g.runs.reduce((s, r) => s + r.summary.final.delivery, 0) / g.runs.length)],
    ['OOD tool-QA, final', (g) => f3(g.runs.reduce((s, r) => s + r.summary.final.ood, 0) / g.runs.length)],
    ['wall time', (g) => formatDuration(g.runs.reduce((s, r) => s + r.summary.wallSeconds, 0) / g.runs.length) + (g.runs.length > 1 ? ' (mean)' : '')],
  ];
  const cells = rows.map(([label, cell]) => [label, ...groups.map(cell)]);
  const widths = [0, ...groups.map((_, i) => i + 1)].map((i) => Math.max(...[['', ...groups.map((g) => g.name)], ...cells].map((r) => r[i].length)));
  out.push('', ['', ...groups.map((g) => g.name)].map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
  for (const r of cells) out.push(r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
  out.push('');
  for (const b of groups.slice(1)) {
    out.push(successDifference(groups[0], b));
    const diff = settingDifferences(groups[0], b);
    out.push(`  settings ${b.name} differs from ${groups[0].name} in: ${diff.length > 0 ? diff.join(', ') : 'none (the same setting)'}`);
  }
  const series = (metric: string, kind: 'train' | 'eval', smooth: boolean): ChartSeries[] =>
    groups.map((g, i) => {
      const pts = curve(g, metric, kind);
      const ys = smooth ? ema(pts.map((p) => p.y), 0.6) : pts.map((p) => p.y);
      return { mark: MARKS[i % MARKS.length], label: g.name, points: pts.map((p, j) => ({ x: p.x, y: ys[j] ?? NaN })) };
    });
  out.push('', terminalChart(series('charts/success', 'train', true), { width, height: 10, yMin: 0, yMax: 1,
    yLabel: 'training success (share of a step\'s rollouts passing every check; EMA 0.6, as TensorBoard smooths)', xLabel: 'step' }));
  out.push('', terminalChart(series('eval/success', 'eval', false), { width, height: 8, yMin: 0, yMax: 1,
    yLabel: 'validation success at each evaluation', xLabel: 'step' }));
  return out.join('\n');
}

export const compareCommand: Command = {
  name: 'compare',
  summary: 'runs or seed groups side by side: final figures, the difference with its interval, the curves',
  help: `usage: npm run cli -- compare A B [C …] [--width N]

  A, B, …           each a run folder, or the seeds of one setting: a folder of runs, or run folders joined by
                    commas (a sweep's seeds of a cell: DIR/runs/<setting>,DIR/runs/<setting>_seed=2,…)
  Prints each side's final figures, then each side's difference from A in final validation success with its
  95 % interval — Welch's t interval over the runs when both sides have at least 2 (the seed-to-seed spread);
  for two single runs Newcombe's hybrid score interval over their evaluation queries (the evaluation's
  sampling only, conservative when both ran the same queries) — and the settings it differs in; then the
  curves as a terminal chart (training success smoothed, validation success at each evaluation).
  --width N         the charts' width in characters (default 60)`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, [], ['width']);
    if (positional.length < 2) throw new Error('compare needs at least two run folders (or folders of runs): compare A B …');
    const groups = positional.map((p, i) => groupOf(String.fromCharCode(65 + i), p));
    console.log(compareText(groups, flagInt(flags, 'width', 60, 20)));
    return 0;
  },
};
