// Reads the recipe runs under results/rl-recipe/<scale>-seed<N>-<real|null>/ (each one `npm run cli -- run`,
// its metrics.jsonl and summary.json) and writes beside them:
//   table.json — per scale and arm: start, end, gain per seed, the mean gain with its 95 % t interval,
//                the pooled final success (Wilson), the paired real − null difference, the cost;
//   table.md   — the same as a Markdown table (pasted into the README by hand), then the training side:
//                sampled success, delivery and entropy in the first and last ten steps, the final KL;
//   curves.svg — greedy validation success against steps, per scale, seeds thin, means thick, null dashed.
// Usage: npx tsx scripts/rlRecipeReport.ts [DIR]   (DIR defaults to results/rl-recipe)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  gainCall,
  intervalsApart,
  pairedDifference,
  summariseArm,
  type ArmSummary,
  type CurvePoint,
  type SeedRun,
} from '../src/findings/seedGains.ts';
import { curvesSvg, type SvgPanel } from '../src/findings/curveSvg.ts';
import { withMetricNames } from '../src/lab/metrics.ts';

const dir = process.argv[2] ?? 'results/rl-recipe';
const RUN = /^(s|m|l)-seed(\d+)-(real|null)$/;

interface Found {
  scale: string;
  arm: 'real' | 'null';
  run: SeedRun;
  hash: string;
  steps: number;
  train: Record<string, number | string>[];
}

function readRun(
  folder: string,
): { run: Omit<SeedRun, 'seed'>; hash: string; steps: number; train: Record<string, number | string>[] } | null {
  const metrics = join(dir, folder, 'metrics.jsonl');
  if (!existsSync(metrics)) return null;
  const lines = readFileSync(metrics, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => withMetricNames(JSON.parse(l) as Record<string, number | string>));
  const curve: CurvePoint[] = lines
    .filter((l) => l.kind === 'eval')
    .map((l) => ({
      step: Number(l.step),
      success: Number(l['eval/success']),
      queries: Number(l['eval/queries'] ?? NaN),
    }));
  const summaryPath = join(dir, folder, 'summary.json');
  const summary = existsSync(summaryPath)
    ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as {
        hash: string;
        steps: number;
        wallSeconds: number;
        cpuSeconds?: number;
        lab: { evalQueries: number };
      })
    : null;
  for (const p of curve) if (!Number.isFinite(p.queries)) p.queries = summary?.lab.evalQueries ?? NaN;
  return {
    run: { curve, wallSeconds: summary?.wallSeconds, cpuSeconds: summary?.cpuSeconds },
    hash: summary?.hash ?? '(unfinished)',
    steps: summary?.steps ?? 0,
    train: lines.filter((l) => l.kind === 'train'),
  };
}

const found: Found[] = [];
for (const folder of readdirSync(dir).sort()) {
  const m = RUN.exec(folder);
  if (!m) continue;
  const r = readRun(folder);
  if (!r || r.run.curve.length === 0) continue;
  found.push({
    scale: m[1],
    arm: m[3] as 'real' | 'null',
    run: { ...r.run, seed: Number(m[2]) },
    hash: r.hash,
    steps: r.steps,
    train: r.train,
  });
}
if (found.length === 0) throw new Error(`no runs named <scale>-seed<N>-<real|null> with evaluations under ${dir}`);

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}` : '—');
const iv = (i: { lo: number; hi: number }) => (Number.isFinite(i.lo) ? `[${pct(i.lo)}, ${pct(i.hi)}]` : '[— one seed]');
const round = (x: number) => Math.round(x * 1e4) / 1e4;

const scales = ['s', 'm', 'l'].filter((s) => found.some((f) => f.scale === s));
const table: Record<string, unknown> = {};
const md: string[] = [
  '| scale | arm | seeds | start | end per seed | gain per seed | mean gain [95 % t] | call | pooled end [Wilson] | CPU min / run |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
// the training side of the same runs: what the sampled rollouts (temperature 0.7) did in the first and
// last ten steps — sampled success, delivery, policy entropy — and the KL to the SFT start at the end
const TRAIN_KEYS = [
  ['charts/success', 'sampled success'],
  ['charts/delivery', 'sampled delivery'],
  ['losses/entropy', 'entropy'],
] as const;
const trainMean = (runs: Found[], key: string, from: number, to: number) => {
  const xs = runs
    .flatMap((r) => r.train.filter((t) => Number(t.step) >= from && Number(t.step) <= to).map((t) => Number(t[key])))
    .filter(Number.isFinite);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
};
// the last ten steps of the longest run (31–40 for the recipe's 40)
const lastStep = Math.max(...found.flatMap((f) => f.train.map((t) => Number(t.step))).filter(Number.isFinite));
const [L0, L1] = [lastStep - 9, lastStep];
const trainingMd: string[] = [
  `| scale | arm | ${TRAIN_KEYS.map(([, l]) => `${l} steps 1–10 → ${L0}–${L1}`).join(' | ')} | KL steps ${L0}–${L1} |`,
  `|---|---|${TRAIN_KEYS.map(() => '---|').join('')}---|`,
];
const panels: SvgPanel[] = [];
for (const scale of scales) {
  const arms: Partial<Record<'real' | 'null', ArmSummary>> = {};
  const entry: Record<string, unknown> = {};
  for (const arm of ['real', 'null'] as const) {
    const runs = found.filter((f) => f.scale === scale && f.arm === arm);
    if (!runs.length) continue;
    const a = summariseArm(runs.map((r) => r.run));
    arms[arm] = a;
    const unfinished = runs
      .filter((r) => r.run.curve[r.run.curve.length - 1].step < Math.max(...runs.map((x) => x.steps), r.steps))
      .map((r) => r.run.seed);
    entry[arm] = {
      seeds: a.seeds,
      start: a.start.map(round),
      end: a.end.map(round),
      gain: a.gain.map(round),
      meanGain: { estimate: round(a.meanGain.estimate), lo: round(a.meanGain.lo), hi: round(a.meanGain.hi) },
      call: gainCall(a.meanGain),
      pooledEnd: {
        estimate: round(a.pooledEnd.estimate),
        lo: round(a.pooledEnd.lo),
        hi: round(a.pooledEnd.hi),
        n: a.pooledEnd.n,
      },
      meanCurve: a.meanCurve.map((p) => ({ step: p.step, success: round(p.success) })),
      lastStep: runs.map((r) => r.run.curve[r.run.curve.length - 1].step),
      cpuMinutesPerRun: round(a.cpuSeconds / 60),
      wallMinutesPerRun: round(a.wallSeconds / 60),
      hashes: runs.map((r) => r.hash),
      unfinished,
      training: Object.fromEntries([
        ...TRAIN_KEYS.map(([k]) => [
          k,
          { first10: round(trainMean(runs, k, 1, 10)), last10: round(trainMean(runs, k, L0, L1)) },
        ]),
        ['klLast10', round(trainMean(runs, 'losses/kl', L0, L1))],
      ]),
    };
    trainingMd.push(
      `| ${scale} | ${arm === 'real' ? 'recipe' : 'null control'} | ${TRAIN_KEYS.map(([k]) => `${trainMean(runs, k, 1, 10).toFixed(3)} → ${trainMean(runs, k, L0, L1).toFixed(3)}`).join(' | ')} | ${trainMean(runs, 'losses/kl', L0, L1).toFixed(4)} |`,
    );
    md.push(
      `| ${scale} | ${arm === 'real' ? 'recipe' : 'null control'} | ${a.seeds.join(', ')} | ${a.start.map(pct).join(', ')} | ${a.end.map(pct).join(', ')} | ` +
        `${a.gain.map((g) => (g >= 0 ? '+' : '') + pct(g)).join(', ')} | **${pct(a.meanGain.estimate)}** ${iv(a.meanGain)} | ${gainCall(a.meanGain)} | ` +
        `${pct(a.pooledEnd.estimate)} ${iv(a.pooledEnd)} (n ${a.pooledEnd.n}) | ${Number.isFinite(a.cpuSeconds) ? (a.cpuSeconds / 60).toFixed(1) : '—'} |`,
    );
  }
  if (arms.real && arms.null) {
    const d = pairedDifference(arms.real, arms.null);
    entry.realMinusNull = {
      seeds: d.seeds,
      estimate: round(d.estimate),
      lo: round(d.lo),
      hi: round(d.hi),
      apart: intervalsApart(arms.real.meanGain, arms.null.meanGain),
    };
  }
  table[scale] = entry;
  panels.push({
    title: `scale ${scale}`,
    series: (['real', 'null'] as const)
      .filter((arm) => arms[arm])
      .map((arm) => ({
        label: arm === 'real' ? 'recipe (seeds thin, mean thick)' : 'null control: advantages shuffled',
        color: arm === 'real' ? '#1f77b4' : '#d62728',
        dashed: arm === 'null',
        seeds: found
          .filter((f) => f.scale === scale && f.arm === arm)
          .map((f) => f.run.curve.map((p) => ({ step: p.step, value: p.success }))),
        mean: arms[arm]!.meanCurve.map((p) => ({ step: p.step, value: p.success })),
      })),
  });
}

const queries = [...new Set(found.flatMap((f) => f.run.curve.map((p) => p.queries)))];
writeFileSync(
  join(dir, 'table.json'),
  JSON.stringify({ format: 'star-lab-rl-recipe-table/1', evalQueries: queries, scales: table }, null, 1) + '\n',
);
writeFileSync(
  join(dir, 'table.md'),
  `${md.join('\n')}\n\nTraining rollouts (means over the arm's seeds and steps):\n\n${trainingMd.join('\n')}\n`,
);
writeFileSync(
  join(dir, 'curves.svg'),
  curvesSvg(panels, {
    title: 'Greedy validation success during RL (GRPO + Sum, T 0.7, constrained plans)',
    note: `${queries.join('/')} validation queries per evaluation; dashed: the same runs with advantages shuffled across the step`,
    xLabel: 'RL step',
    yLabel: 'validation success',
  }),
);
console.log(`${md.join('\n')}\n\n${trainingMd.join('\n')}`);
