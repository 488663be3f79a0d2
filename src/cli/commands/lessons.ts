// `npm run cli -- lessons`: derives the Lessons view's reference (src/lab/lessonReference.ts) from the
// committed standard findings runs: for each setting a lesson runs, every finished seed's folder under
// --runs (named as `sweep` names them, runDirName), checked to be exactly that setting from today's shipped
// checkpoint, reduced to per-step bands, early/late means and start/end validation success per seed.
// Rerun it whenever more seeds land; the page bundles the file it writes.
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagInt, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { readSummary, shippedCheckpointDir, summaryIsOf } from '../rlRun.ts';
import { runDirName, STANDARD, standardRuns } from './sweep.ts';
import { runAll } from '../sweepRuns.ts';
import { readPowerPlan } from './powerPlan.ts';
import { defaultWasmThreads, THREADS_ENV } from '../../node/nodeBackend.ts';
import { FINDINGS } from '../../findings/findings.ts';
import type { LabConfig } from '../../lab/config.ts';
import { armConfig, BAND_SEEDS, LESSONS } from '../../lessons/lessons.ts';
import {
  LESSON_REFERENCE_FORMAT,
  REFERENCE_SMOOTHING,
  lessonSettings,
  predictionBand,
  settingKey,
  settingReference,
  type CommittedRun,
  type LessonReference,
  type SettingReference,
} from '../../lessons/lessonReference.ts';
import { verdictRates, type VerdictRates } from '../../lessons/lessonVerdicts.ts';
import { classSizeFor80 } from '../../lessons/lessonClass.ts';
import { pooledSd } from '../../stats/seedStatistics.ts';
import { tInterval } from '../../stats/intervals.ts';
import { metricInfo, withMetricNames } from '../../lab/metrics.ts';
import { METRIC } from '../../lab/metricNames.ts';
import { serializeHash } from '../../lab/urlState.ts';
import { plannedSeeds, type PowerPlan } from '../../findings/powerPlan.ts';
import { makeOutFileParent } from '../outDir.ts';
import { shellCommand } from '../shellQuote.ts';
import { writeAtomic } from '../../node/atomicWrite.ts';

const DEFAULT_RUNS = 'results/findings/runs';
const DEFAULT_OUT = 'results/lessons/reference.json';

export const lessonsCommand: Command = {
  name: 'lessons',
  summary: "derive the Lessons view's reference bands from the committed findings runs",
  help: `usage: npm run cli -- lessons [--runs DIR] [--out FILE] [--max-seed N] [--run [--jobs N]]

  --runs DIR     the standard findings runs, one folder per setting and seed (default ${DEFAULT_RUNS})
  --out FILE     the reference the page bundles (default ${DEFAULT_OUT})
  --max-seed N   the highest seed looked for (default: the findings' power plan's highest planned seed, 15;
                 seeds run for later plans, e.g. the interactions', stay out of the lessons' bands)
  --run          first run the seeds 1…${BAND_SEEDS} a lesson setting lacks, into --runs, exactly as
                 \`sweep --standard\` would (same folders, same settings): every lesson setting is a cell or
                 null control of the findings' power plan, which gives each at least ${BAND_SEEDS} seeds
  --jobs N       with --run: runs at once, each in its own process (default: the number of cores)

  For each setting a lesson runs (src/lab/lessons.ts), reads every finished seed (summary.json of exactly
  that setting, from today's shipped checkpoint) and writes per-step bands over seeds (mean and the 95 %
  band one run is expected in, of EMA-smoothed curves, weight ${REFERENCE_SMOOTHING}), each seed's early and late
  means and its start and end validation success. Prints each setting's seed count (a lesson calls its
  reference complete from ${BAND_SEEDS} seeds), per lesson and arm the outcome to expect, and per lesson how often one
  run misleads (docs/lessons.md).`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, ['runs', 'out', 'max-seed', 'run', 'jobs'], ['run']);
    const runs = resolve(flagText(flags, 'runs', DEFAULT_RUNS));
    const out = resolve(flagText(flags, 'out', DEFAULT_OUT));
    const maxSeed = flagInt(flags, 'max-seed', referenceMaxSeed(runs), 1);
    makeOutFileParent(out);
    if (!existsSync(runs)) throw new Error(`--runs ${runs} does not exist`);
    if (flags.has('run')) {
      const jobs = flagInt(flags, 'jobs', availableParallelism(), 1);
      process.env[THREADS_ENV] ??= String(defaultWasmThreads(jobs));
      // seed by seed across the settings, so an interrupted --run leaves every band a seed further
      const configs = lessonRuns(readPowerPlan(dirname(runs)));
      await runAll(configs, runs, 'wasm', jobs);
    }
    const settings: Record<string, SettingReference> = {};
    for (const s of lessonSettings()) {
      const found = committedRuns(runs, s.config, s.metrics, maxSeed);
      if (found.length === 0) {
        console.log(`  ${s.key}: no committed seeds (the page says so instead of drawing a band)`);
        continue;
      }
      settings[s.key] = settingReference(s.key, found, s.metrics);
      console.log(
        `  ${s.key}: ${found.length} seed${found.length === 1 ? '' : 's'} (${found.map((r) => r.seed).join(', ')})${found.length < BAND_SEEDS ? ` — fewer than ${BAND_SEEDS}: incomplete` : ''}`,
      );
    }
    // the date moves only when the reference does (a rerun with no new seeds leaves the file as it is)
    const before = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Partial<LessonReference>) : null;
    const same = before?.settings !== undefined && JSON.stringify(before.settings) === JSON.stringify(settings);
    const reference: LessonReference = {
      format: LESSON_REFERENCE_FORMAT,
      command: shellCommand('npm run cli -- lessons', [
        ...(flags.has('runs') ? ['--runs', relative(process.cwd(), runs)] : []),
        ...(flags.has('out') ? ['--out', relative(process.cwd(), out)] : []),
      ]),
      date: same && typeof before?.date === 'string' ? before.date : new Date().toISOString(),
      smoothing: REFERENCE_SMOOTHING,
      settings,
    };
    writeAtomic(out, JSON.stringify(reference) + '\n');
    console.log(`wrote ${relative(process.cwd(), out)} (${Object.keys(settings).length} settings)\n`);
    console.log(expectedTable(settings));
    console.log(`\n${misleadingTable(settings)}`);
    console.log(`\n${classSizeTable(settings)}`);
    return 0;
  },
};

/**
 * the runs `--run` makes: seeds 1…BAND_SEEDS of every lesson setting, seed by seed across the settings (an
 * interrupted --run leaves every band a seed further). Each must be a run the findings' power plan makes
 * (same folder, same settings), so the lessons add no seed a finding's test could pick up unplanned.
 */
export function lessonRuns(plan: PowerPlan | null): [string, LabConfig][] {
  if (!plan)
    throw new Error(
      "--run needs the findings' power plan (plan.json beside --runs): the lessons run only planned seeds",
    );
  const planned = standardRuns(FINDINGS, plan, [], { ...STANDARD, evalEvery: STANDARD.steps });
  const configs = Array.from({ length: BAND_SEEDS }, (_, i) => i + 1)
    .flatMap((seed) => lessonSettings().map((s) => ({ ...s.config, seed })))
    .map((lab): [string, LabConfig] => [runDirName(lab), lab]);
  for (const [name, lab] of configs) {
    const same = planned.get(name);
    if (!same || serializeHash(same) !== serializeHash(lab))
      throw new Error(`lesson run ${name} is not a run of the findings' power plan`);
  }
  return configs;
}

const pct = (x: number | null) =>
  x === null || !Number.isFinite(x) ? '—' : (100 * Math.min(1, Math.max(0, x))).toFixed(1);

/** per lesson and arm: the seeds, the start, the mean end with its t interval, the band for one run, and the
 *  late means (last quarter of the steps) of the lesson's mechanism metrics — what a teacher should expect */
export function expectedTable(settings: Record<string, SettingReference>): string {
  const rows = [
    '| lesson | arm | seeds | start % | end %: mean [95 % t] | one run: 95 % band | mechanism, last 10 steps: mean [95 % t] |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const lesson of LESSONS) {
    for (const arm of lesson.arms) {
      const r = settings[settingKey(armConfig(arm, 1))];
      if (!r) {
        rows.push(`| ${lesson.id} | ${arm.label} | 0 | — | — | — | — |`);
        continue;
      }
      const end = tInterval(r.eval.end);
      const band = predictionBand(r.eval.end);
      const mech = lesson.charts.filter((c) => c.role === 'mechanism').map((c) => {
        const late = r.windows[c.metric]?.late;
        if (!late) return `${metricInfo(c.metric).label} —`;
        const i = tInterval(late);
        const f = (x: number) => (metricInfo(c.metric).format === 'rate' ? pct(x) : Math.max(0, x).toFixed(2));
        return `${metricInfo(c.metric).label} ${f(i.estimate)} [${f(i.lo)}, ${f(i.hi)}]`;
      });
      rows.push(
        `| ${lesson.id} | ${arm.label} | ${r.seeds.length} | ${pct(r.eval.start[0])} | ${pct(end.estimate)} [${pct(end.lo)}, ${pct(end.hi)}] | [${pct(band.lo)}, ${pct(band.hi)}] | ${mech.join('; ')} |`,
      );
    }
  }
  return rows.join('\n');
}

/** per lesson and draw (both arms, or one): how often one run reads each verdict over the committed seeds and how
 *  often it misleads, under the page's seed-aware rule and the rule before it (evaluation only) (docs/lessons.md) */
export function misleadingTable(settings: Record<string, SettingReference>): string {
  const rows = [
    '| lesson | draw | draws | committed answer | seed-aware rule reads | misleads | old rule reads | misleads |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const share = (r: VerdictRates) =>
    Object.entries(r.counts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${Math.round((100 * n) / r.draws)} %`)
      .join(', ');
  for (const lesson of LESSONS) {
    const rates = verdictRates(lesson, lesson.arms.map((arm) => settings[settingKey(armConfig(arm, 1))] ?? null));
    for (const draw of ['pair', 'first arm', 'second arm', 'one run'] as const) {
      const now = rates.find((r) => r.draw === draw && r.rule === 'seed-aware');
      if (!now) continue;
      const old = rates.find((r) => r.draw === draw && r.rule === 'old');
      const armName =
        draw === 'first arm'
          ? lesson.arms[0].label
          : draw === 'second arm'
            ? lesson.arms[1].label
            : draw === 'pair'
              ? 'both arms'
              : lesson.arms[0].label;
      const oldCells = old ? `${share(old)} | ${(100 * old.misleading).toFixed(1)} %` : 'same rule | —';
      rows.push(
        `| ${lesson.id} | ${armName} | ${now.draws} | ${now.committed} | ${share(now)} | ${(100 * now.misleading).toFixed(1)} % | ${oldCells} |`,
      );
    }
  }
  return rows.join('\n');
}

/** per lesson with a comparison: the difference of its arms' mean end success over every seed of their bands (not a
 *  finding's planned test, which compares gains on its planned seeds), the pooled SD a run and the learners an arm a
 *  class needs for 80 % power (Welch, α 0.05) — docs/lessons.md "A class sitting" */
export function classSizeTable(settings: Record<string, SettingReference>): string {
  const rows = [
    '| lesson | arms (seeds in the band) | first − second arm, mean end success (points) | SD a run (points) | learners an arm for 80 % power |',
    '|---|---|---|---|---|',
  ];
  for (const lesson of LESSONS) {
    const refs = lesson.arms.map((arm) => settings[settingKey(armConfig(arm, 1))] ?? null);
    const n = classSizeFor80(lesson, refs);
    if (n === null || !refs[0] || !refs[1]) continue;
    const d = 100 * (mean(refs[0].eval.end) - mean(refs[1].eval.end));
    const sd = 100 * pooledSd([refs[0].eval.end, refs[1].eval.end]).sd;
    const arms = lesson.arms.map((a, i) => `${a.label} (${refs[i]!.eval.end.length})`).join(' − ');
    rows.push(`| ${lesson.id} | ${arms} | ${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(1)} | ${sd.toFixed(1)} | ${n} |`);
  }
  return rows.join('\n');
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** the shipped checkpoint's weights hash: a run from an older start is not today's reference */
function startSha(scale: string): string {
  const card = JSON.parse(readFileSync(join(shippedCheckpointDir(scale), 'card.json'), 'utf8')) as {
    weights: { sha256: string };
  };
  return card.weights.sha256;
}

interface MetricsLine { kind: string; step: number; [metric: string]: number | string }

/** the highest seed a lesson's band reads: the findings' power plan's highest planned seed (the plan beside
 *  `runs`), so that runs of a later plan on fresh seeds (the interactions') never change the bands;
 *  99 without a plan */
export function referenceMaxSeed(runs: string): number {
  const plan = readPowerPlan(dirname(runs));
  const seeds = plan ? FINDINGS.flatMap((f) => plannedSeeds(plan, f.id) ?? []) : [];
  return seeds.length ? Math.max(...seeds) : 99;
}

/** every finished seed of `config` under `runs` (seed 1…maxSeed), read from its folder */
export function committedRuns(
  runs: string,
  config: LabConfig,
  metrics: readonly string[],
  maxSeed: number,
): CommittedRun[] {
  const found: CommittedRun[] = [];
  const sha = startSha(config.scale);
  for (let seed = 1; seed <= maxSeed; seed++) {
    const lab = { ...config, seed };
    const dir = join(runs, runDirName(lab));
    const summary = readSummary(dir);
    if (!summary || !summaryIsOf(summary, lab) || summary.checkpointSha256 !== sha || summary.steps !== lab.steps)
      continue;
    const lines = readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => withMetricNames(JSON.parse(l) as MetricsLine));
    const train = lines.filter((l) => l.kind === 'train').sort((a, b) => a.step - b.step);
    if (train.length !== lab.steps || train.some((l, i) => l.step !== i + 1))
      throw new Error(`${dir}: metrics.jsonl does not hold steps 1…${lab.steps} in order`);
    const evals = lines
      .filter((l) => l.kind === 'eval')
      .sort((a, b) => a.step - b.step)
      .map((l) => ({ step: l.step, success: Number(l[METRIC.evalSuccess]), queries: Number(l[METRIC.evalQueries]) }));
    found.push({
      seed,
      where: relative(process.cwd(), dir),
      train: train.map((l) =>
        Object.fromEntries(metrics.filter((m) => typeof l[m] === 'number').map((m) => [m, l[m] as number])),
      ),
      evals,
      wallSeconds: summary.wallSeconds,
      cpuSeconds: summary.cpuSeconds,
    });
  }
  return found;
}
