// The two questions past the paper (T8: where an adaptive curriculum switches, by scale; T9: the SFT start's size),
// answered from their plan's runs (results/findings/beyond-plan.json, made before any of them). `power-plan --beyond
// --test` writes results/findings/beyond-test.{json,md} from whatever runs have finished: the figures grow as runs
// land, and no call is made until every planned run of a test has finished. The Findings view shows it under
// "Beyond the paper". Pure: no tfjs, no DOM, no fs.
import { testInteractions, testPairs, type FamilyCall } from '../stats/seedStatistics.ts';
import { wilson } from '../stats/intervals.ts';
import type { MechanismFigure } from './mechanisms.ts';

export const BEYOND_PLAN_FORMAT = 'star-lab-beyond-plan/1';
export const BEYOND_TEST_FORMAT = 'star-lab-beyond-test/1';

/** the questions in the note's own words (its limits), with their English; the plan and the page quote them */
export const BEYOND_QUESTIONS = {
  T8: {
    title: "The curriculum's switch point by scale",
    limit: 'its fourth limit',
    zh: 'Curriculum reward 的设计: Curriculum 何时从 dense 切换到 sparse 是基于人工启发式，不是自适应的。这个切换点本身可能也是 scale-dependent 的。',
    en: 'Curriculum reward design: when the curriculum switches from dense to sparse rests on a hand-made heuristic, not an adaptive one. The switch point itself may also be scale-dependent.',
  },
  T9: {
    title: "The SFT start's size",
    limit: 'its third limit',
    zh: 'SFT → RL pipeline: 论文用 ~1.2K SFT 轨迹作为 RL 起点。SFT 数据质量和数量对 RL 起点的影响未被充分探索。',
    en: 'SFT → RL pipeline: the paper uses ~1.2K SFT trajectories as the RL starting point. The effect of SFT data quality and quantity on the RL starting point has not been fully explored.',
  },
} as const;

export type BeyondScale = 's' | 'm' | 'l';
const SCALE_NAME: Record<BeyondScale, string> = { s: '1.5B', m: '3B', l: '7B' };

/** results/findings/beyond-plan.json, the parts the test reads */
export interface BeyondPlan {
  format: typeof BEYOND_PLAN_FORMAT;
  date: string;
  commit: string;
  command: string;
  choices: { delta: number; alpha: number; power: number };
  T8: {
    pairs: { alpha: number; seeds: number };
    interactions: { interaction: string; alpha: number; seeds: number }[];
    seedsPerCell: number;
    adaptiveSeeds: [number, number];
    fixedReused: { scale: BeyondScale; dirs: string[] }[];
    runs: { arm: 'adaptive' | 'fixed'; scale: BeyondScale; seed: number; coreMinutes: number; hash: string }[];
    coreHours: number;
  };
  T9: {
    sizes: number[];
    sft: { size: number; dir: string; command: string; coreMinutes: number }[];
    pairs: { alpha: number; seeds: number };
    standardReused: string[];
    rlSeeds: [number, number];
    runs: { size: number; seed: number; coreMinutes: number; command: string }[];
    coreHours: number;
  };
  coreHours: number;
}

/** what the test reads of one finished run (its summary.json and, for T8, its metrics.jsonl's stages) */
export interface BeyondRun {
  seed: number;
  /** end − start validation success, in points, unrounded */
  gain: number;
  /** the start's greedy validation success (a fraction) and how many queries it was measured on */
  start: { success: number; queries: number };
  /** charts/curriculum_stage of each training step (0 Sum, 1 Macro, 2 Success); absent where not read */
  stages?: { step: number; stage: number }[];
  /** the run's last training step */
  steps: number;
}

/** every planned cell's run folders, in seed order: T8's six cells and T9's three */
export interface BeyondDesign {
  t8: { scale: BeyondScale; arm: 'adaptive' | 'fixed'; dirs: string[]; fresh: string[] }[];
  t9: { size: number; dirs: string[]; fresh: string[] }[];
  /** the SFT starts the plan trains (each a folder that holds a checkpoint once trained) */
  sft: { size: number; dir: string }[];
}

/** the plan's cells as run folders: `dirOfHash` names a T8 run's folder from its settings (as `sweep` names it);
 *  `runsDir` the folder the committed runs live in */
export function beyondDesign(p: BeyondPlan, dirOfHash: (hash: string) => string, runsDir: string): BeyondDesign {
  const scales: BeyondScale[] = ['s', 'm', 'l'];
  const t8 = scales.flatMap((scale) =>
    (['adaptive', 'fixed'] as const).map((arm) => {
      const fresh = p.T8.runs.filter((r) => r.scale === scale && r.arm === arm).map((r) => dirOfHash(r.hash));
      const reused = arm === 'fixed' ? (p.T8.fixedReused.find((f) => f.scale === scale)?.dirs ?? []) : [];
      return { scale, arm, dirs: [...reused.map((d) => `${runsDir}/${d}`), ...fresh], fresh };
    }),
  );
  const outOf = (command: string) => {
    const m = /--out (\S+)/.exec(command);
    if (!m) throw new Error(`the plan's run "${command}" names no --out folder`);
    return m[1];
  };
  const t9 = p.T9.sizes.map((size) => {
    const fresh = p.T9.runs.filter((r) => r.size === size).map((r) => outOf(r.command));
    const standard = fresh.length === 0;
    return {
      size,
      dirs: standard ? p.T9.standardReused.slice(0, p.T9.pairs.seeds).map((d) => `${runsDir}/${d}`) : fresh,
      fresh,
    };
  });
  return { t8, t9, sft: p.T9.sft.map((s) => ({ size: s.size, dir: s.dir })) };
}

/** the median of a sample with its distribution-free interval from order statistics; a censored value (null: the
 * run never reached the stage) counts as larger than every observed one and is never averaged in */
export interface MedianInterval {
  n: number;
  censored: number;
  /** null: the median falls among the censored runs (past the last step) or there is no run */
  median: number | null;
  /** the interval's ends (null: past the last step, or no end at this n) and its exact coverage */
  lo: number | null;
  hi: number | null;
  coverage: number | null;
}

/** P(X ≤ k) for X ~ Binomial(n, ½), exactly (n is a seed count: small) */
function binomialHalfCdf(k: number, n: number): number {
  let c = 1;
  let s = 0;
  for (let i = 0; i <= k; i++) {
    s += c;
    c = (c * (n - i)) / (i + 1);
  }
  return s / 2 ** n;
}

/**
 * The median and its distribution-free interval: the order statistics x₍ⱼ₎ and x₍ₙ₋ⱼ₊₁₎ with the largest j such
 * that P(Binomial(n, ½) ≤ j − 1) ≤ (1 − level)/2, whose coverage 1 − 2·P(Binomial ≤ j − 1) is at least `level`
 * whatever the distribution (the sign test's interval). Under five or six seeds no j reaches 95 %: no interval.
 */
export function medianWithInterval(values: readonly (number | null)[], level = 0.95): MedianInterval {
  const n = values.length;
  const observed = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
  const censored = n - observed.length;
  const at = (rank: number) => (rank <= observed.length ? observed[rank - 1] : null); // 1-based; past: censored
  if (n === 0) return { n, censored, median: null, lo: null, hi: null, coverage: null };
  const mid =
    n % 2 ? at((n + 1) / 2) : at(n / 2) === null || at(n / 2 + 1) === null ? null : (at(n / 2)! + at(n / 2 + 1)!) / 2;
  let j = 0;
  while (j + 1 <= n / 2 && binomialHalfCdf(j, n) <= (1 - level) / 2) j++;
  if (j === 0) return { n, censored, median: mid, lo: null, hi: null, coverage: null };
  return { n, censored, median: mid, lo: at(j), hi: at(n - j + 1), coverage: 1 - 2 * binomialHalfCdf(j - 1, n) };
}

/** the first training step at or past each stage (1 Macro, 2 Success), null where the run never got there */
export function firstStageSteps(stages: readonly { step: number; stage: number }[]): [number | null, number | null] {
  const first = (k: number) => stages.find((s) => s.stage >= k)?.step ?? null;
  return [first(1), first(2)];
}

/** a tested difference as the record keeps it (rounded for display; the calls are made on the unrounded figures) */
export interface BeyondDifference {
  label: string;
  /** seeds finished in each cell it reads, and the seeds planned a cell */
  n: number[];
  planned: number;
  difference: number | null;
  interval: { lo: number; hi: number; level: number } | null;
  p: number | null;
  pAdjusted: number | null;
  equivalence: { delta: number; pAdjusted: number; shown: boolean } | null;
  /** `positive`/`negative`: the Holm-adjusted test rejects with that sign; interim while a planned run is missing */
  call: 'positive' | 'negative' | 'not detected' | 'interim';
}

const r2 = (x: number) => Math.round(100 * x) / 100 || 0;
const p4 = (x: number) => Number(x.toPrecision(4));

function difference(
  label: string,
  n: number[],
  planned: number,
  t: (FamilyCall & { difference: number; p: number }) | null,
  complete: boolean,
): BeyondDifference {
  if (!t)
    return {
      label,
      n,
      planned,
      difference: null,
      interval: null,
      p: null,
      pAdjusted: null,
      equivalence: null,
      call: complete ? 'not detected' : 'interim',
    };
  return {
    label,
    n,
    planned,
    difference: r2(t.difference),
    interval: { lo: r2(t.interval.lo), hi: r2(t.interval.hi), level: t.interval.level },
    p: p4(t.p),
    pAdjusted: p4(t.pAdjusted),
    equivalence: t.equivalence
      ? { delta: t.equivalence.delta, pAdjusted: p4(t.equivalence.pAdjusted), shown: t.equivalence.shown }
      : null,
    call:
      t.call === 'interim'
        ? 'interim'
        : t.call === 'supports'
          ? 'positive'
          : t.call === 'contradicts'
            ? 'negative'
            : 'not detected',
  };
}

export interface T8Answer {
  planned: number;
  finished: number;
  seedsPerCell: number;
  /** the fixed schedule's first Macro and first Success step, read from a committed fixed run */
  fixedFirst: [number | null, number | null];
  /** where the adaptive rule moves on, at each scale: the first step under Macro (stage 1) and under Success (2) */
  switches: { scale: BeyondScale; name: string; stage: 1 | 2; steps: number; interval: MedianInterval }[];
  pairs: BeyondDifference[];
  interactions: BeyondDifference[];
  /** groups with no signal under each reward by scale, from the committed T1 runs (the mechanism) */
  mechanism: MechanismFigure | null;
}

export interface T9Answer {
  planned: number;
  finished: number;
  seedsPerCell: number;
  starts: { size: number; queries: number; successes: number; success: number; lo: number; hi: number; runs: number }[];
  pairs: BeyondDifference[];
}

/** T8 and T9 answered from the runs that have finished (`read` gives a finished run, undefined otherwise) */
export function testBeyond(
  p: BeyondPlan,
  d: BeyondDesign,
  read: (dir: string) => BeyondRun | undefined,
  o: { sftDone: (dir: string) => boolean; mechanism: MechanismFigure | null },
): { T8: T8Answer; T9: T9Answer } {
  const delta = p.choices.delta;
  const alpha = p.choices.alpha;
  // ---- T8
  const n8 = p.T8.seedsPerCell;
  const cells8 = d.t8.map((c) => ({ ...c, runs: c.dirs.slice(0, n8).map(read).filter((r): r is BeyondRun => !!r) }));
  const cell8 = (scale: BeyondScale, arm: 'adaptive' | 'fixed') =>
    cells8.find((c) => c.scale === scale && c.arm === arm)!;
  const complete8 = cells8.every((c) => c.runs.length >= n8);
  const scales: BeyondScale[] = ['s', 'm', 'l'];
  const gains = (scale: BeyondScale, arm: 'adaptive' | 'fixed') => cell8(scale, arm).runs.map((r) => r.gain);
  const pairs8 = testPairs(
    scales.map((s) => ({ higher: gains(s, 'adaptive'), lower: gains(s, 'fixed') })),
    { alpha, complete: complete8, delta },
  );
  const xs = [
    ['s', 'l'],
    ['m', 'l'],
  ] as const;
  const inter8 = testInteractions(
    xs.map(([a, b]) => ({
      plus: [gains(a, 'adaptive'), gains(a, 'fixed')] as const,
      minus: [gains(b, 'adaptive'), gains(b, 'fixed')] as const,
    })),
    { alpha, complete: complete8, delta },
  );
  const fixedRun = cells8.find((c) => c.arm === 'fixed' && c.runs.some((r) => r.stages))?.runs.find((r) => r.stages);
  const switches = scales.flatMap((scale) =>
    ([1, 2] as const).map((stage) => {
      const runs = cell8(scale, 'adaptive').runs.filter((r) => r.stages);
      return {
        scale,
        name: SCALE_NAME[scale],
        stage,
        steps: Math.max(0, ...runs.map((r) => r.steps)),
        interval: medianWithInterval(runs.map((r) => firstStageSteps(r.stages!)[stage - 1])),
      };
    }),
  );
  const T8: T8Answer = {
    planned: p.T8.runs.length,
    finished: cells8.reduce((s, c) => s + c.fresh.filter((dir) => read(dir)).length, 0),
    seedsPerCell: n8,
    fixedFirst: fixedRun ? firstStageSteps(fixedRun.stages!) : [null, null],
    switches,
    pairs: scales.map((s, i) =>
      difference(
        `adaptive − fixed at ${SCALE_NAME[s]}`,
        [gains(s, 'adaptive').length, gains(s, 'fixed').length],
        n8,
        pairs8[i],
        complete8,
      ),
    ),
    interactions: xs.map(([a, b], i) =>
      difference(
        `(adaptive − fixed at ${SCALE_NAME[a]}) − (adaptive − fixed at ${SCALE_NAME[b]})`,
        [a, b].flatMap((s) => [gains(s, 'adaptive').length, gains(s, 'fixed').length]),
        n8,
        inter8[i],
        complete8,
      ),
    ),
    mechanism: o.mechanism,
  };
  // ---- T9
  const n9 = p.T9.pairs.seeds;
  const cells9 = d.t9.map((c) => ({ ...c, runs: c.dirs.slice(0, n9).map(read).filter((r): r is BeyondRun => !!r) }));
  const sftDone = d.sft.filter((s) => o.sftDone(s.dir)).length;
  const complete9 = cells9.every((c) => c.runs.length >= n9);
  const standard = cells9.find((c) => c.fresh.length === 0);
  if (!standard)
    throw new Error("the T9 plan names no standard start (a size whose runs are the committed default cell's)");
  const others = cells9.filter((c) => c !== standard);
  const pairs9 = testPairs(
    others.map((c) => ({ higher: c.runs.map((r) => r.gain), lower: standard.runs.map((r) => r.gain) })),
    {
      alpha,
      complete: complete9,
      delta,
    },
  );
  const starts = cells9.flatMap((c) => {
    if (c.runs.length === 0) return [];
    const s = c.runs[0].start;
    // a start is one checkpoint evaluated greedily: every run from it must read the same figure
    const differs = c.runs.find((r) => r.start.success !== s.success || r.start.queries !== s.queries);
    if (differs)
      throw new Error(
        `T9 start of ${c.size}: seed ${differs.seed} measured ${differs.start.success} on ${differs.start.queries} queries, seed ${c.runs[0].seed} ${s.success} on ${s.queries}: not one start`,
      );
    const successes = Math.round(s.success * s.queries);
    const w = wilson(successes, s.queries);
    return [
      {
        size: c.size,
        queries: s.queries,
        successes,
        success: r2(100 * s.success),
        lo: r2(100 * w.lo),
        hi: r2(100 * w.hi),
        runs: c.runs.length,
      },
    ];
  });
  const T9: T9Answer = {
    planned: p.T9.runs.length + d.sft.length,
    finished: sftDone + cells9.reduce((s, c) => s + c.fresh.filter((dir) => read(dir)).length, 0),
    seedsPerCell: n9,
    starts,
    pairs: others.map((c, i) =>
      difference(`SFT on ${c.size} − on ${standard.size}`, [c.runs.length, standard.runs.length], n9, pairs9[i], complete9),
    ),
  };
  return { T8, T9 };
}

export interface BeyondTestRecord {
  format: typeof BEYOND_TEST_FORMAT;
  date: string;
  commit: string;
  dirtyFiles?: { path: string; sha256: string | null }[];
  command: string;
  plan: {
    date: string;
    commit: string;
    coreHours: number;
    T8: { coreHours: number; seeds: [number, number]; reused: number };
    T9: { coreHours: number; seeds: [number, number]; sizes: number[] };
  };
  familyAlpha: number;
  /** the run folders each cell reads, in seed order (a cross-check reads the same folders) */
  design: BeyondDesign;
  T8: T8Answer;
  T9: T9Answer;
}

export function beyondTestRecord(
  p: BeyondPlan,
  answers: { T8: T8Answer; T9: T9Answer },
  design: BeyondDesign,
  o: { date: string; commit: string; dirtyFiles?: { path: string; sha256: string | null }[]; command: string },
): BeyondTestRecord {
  return {
    format: BEYOND_TEST_FORMAT,
    date: o.date,
    commit: o.commit,
    ...(o.dirtyFiles?.length ? { dirtyFiles: o.dirtyFiles } : {}),
    command: o.command,
    plan: {
      date: p.date,
      commit: p.commit,
      coreHours: p.coreHours,
      T8: {
        coreHours: p.T8.coreHours,
        seeds: p.T8.adaptiveSeeds,
        reused: Math.min(...p.T8.fixedReused.map((f) => f.dirs.length)),
      },
      T9: { coreHours: p.T9.coreHours, seeds: p.T9.rlSeeds, sizes: p.T9.sizes },
    },
    familyAlpha: p.choices.alpha,
    design,
    T8: answers.T8,
    T9: answers.T9,
  };
}
