// The Lessons: each finding turned into a teaching demo a class can run in one sitting — a
// question, a prediction picked before running, one or two live arms at a setting that is a cell of the
// findings' standard grids (so its reference is the committed runs of exactly that setting), the metric
// that shows why, and a takeaway computed from the learner's run (lessonTakeaway.ts). Pure data: the
// page (src/ui/views/LessonsView.svelte) and the CLI (`lessons`, which derives the reference bands from
// results/findings/runs/) both read it. No tfjs, no DOM.
import { defaultConfig, type LabConfig } from '../lab/config.ts';
import type { FindingId } from '../findings/findings.ts';
import type { LessonId } from '../lab/urlState.ts';

/** The findings' standard size (`sweep --standard`, src/cli/commands/sweep.ts STANDARD; a test keeps them
 *  equal): a lesson runs exactly a committed cell, so its band is that cell's seeds. */
export const LESSON_SIZE: Partial<LabConfig> = {
  steps: 40,
  queriesPerStep: 4,
  groupSize: 8,
  evalEvery: 40,
  evalQueries: 300,
  evalToolQa: 100,
  learningRate: 1e-4,
};

/** a smoke size for the browser test (`?lessonSize=smoke`): seconds a run, not a result — the page says so */
export const SMOKE_SIZE: Partial<LabConfig> = {
  steps: 6,
  evalEvery: 2,
  evalQueries: 4,
  evalToolQa: 0,
  queriesPerStep: 1,
  groupSize: 2,
  trainSize: 20,
};

/** a run at the smoke size: every setting SMOKE_SIZE sets is its (a page at one size never shows a sitting of the
 *  other) */
export const isSmokeRun = (config: Readonly<Record<string, unknown>>): boolean =>
  Object.entries(SMOKE_SIZE).every(([k, v]) => config[k] === v);

/** the settings a size may change; an arm's run keeps the rest of its lesson's setting */
export const SIZE_KEYS = [...new Set([...Object.keys(LESSON_SIZE), ...Object.keys(SMOKE_SIZE)])] as (keyof LabConfig)[];

/** seeds a band needs before the page calls the reference complete */
export const BAND_SEEDS = 8;

/** the steps whose means the takeaway compares: the first and the last quarter of a run's (1–10 and 31–40 of 40),
 * 1-based, inclusive */
export function runWindows(steps: number): { early: [number, number]; late: [number, number] } {
  const q = Math.max(1, Math.round(steps / 4));
  return { early: [1, Math.min(steps, q)], late: [Math.max(1, steps - q + 1), steps] };
}

export interface LessonArm {
  /** short and stable: it names the arm in the run's lesson tag */
  key: string;
  label: string;
  /** the arm's settings over the defaults and LESSON_SIZE (the seed is the session's) */
  config: Partial<LabConfig>;
}

/** a training metric drawn per step with its band; `why` says what it shows in this lesson */
export interface LessonChart {
  metric: string;
  why: string;
  /** the mechanism (drawn and named as such), or the outcome the question is about */
  role: 'mechanism' | 'outcome';
}

export interface Prediction {
  key: string;
  text: string;
}

/** a pair of a finding's standard table whose call the takeaway quotes (labels as in table.json's compares.pairs) */
export interface FindingPair {
  finding: FindingId;
  higher: string;
  lower: string;
  /** the key of the arm that is the pair's `higher` side (the paper's direction), so a class's own test is signed as
   * the answer is */
  higherArm: string;
}

/** How the learner's run decides which prediction it bears out (computed in lessonTakeaway.ts). */
export type Judge =
  /** the arms' final validation success: the first above the second, apart by their 95 % intervals; not apart; below */
  | { kind: 'ends'; aHigher: string; same: string; aLower: string }
  /** the first arm's training rollouts, mean of the last ten steps minus the first ten, of two rates: the one
   *  that rose more (by at least `rise`, a share), or `neither` when neither rose that much */
  | {
      kind: 'rises';
      metrics: readonly [string, string];
      keys: readonly [string, string];
      neither: string;
      rise: number;
    }
  /** how far apart the arms' final validation success ends (points): the first bound it is under, else `beyond` */
  | { kind: 'spread'; bounds: readonly (readonly [points: number, key: string])[]; beyond: string };

export interface Lesson {
  id: LessonId;
  title: string;
  /** the tab's label */
  short: string;
  /** the question, in plain words */
  question: string;
  /** what the class should see in the end, for the page's intro line (never the answer: that is computed) */
  setup: string;
  predictions: readonly Prediction[];
  judge: Judge;
  /** the arm the learner always runs first, then the other one (side by side where the cores allow) */
  arms: readonly [LessonArm, LessonArm];
  /** the arms differ only by the seed (lesson 5): both share one reference, each draws its own seed */
  seedsOnly?: true;
  charts: readonly LessonChart[];
  /** the findings pair whose difference test the takeaway reads (absent: the page computes the call itself) */
  pair?: FindingPair;
  /** the paper's figure(s) for this comparison, in words (from findings.ts) */
  paper: string;
}

const M = { scale: 'm' } as const;
const CURRICULUM = { ...M, reward: 'curriculum' } as const;

export const LESSONS: readonly Lesson[] = [
  {
    id: 'null-control',
    short: 'Null control',
    title: 'RL against its null control',
    question: 'Does the reward teach the agent anything, or would any 40 steps of updates do the same?',
    setup:
      "Two arms from the same SFT checkpoint (scale m, GRPO, Sum reward): the real recipe, and the same run with each step's advantages shuffled across its rollouts — the same updates, the same size, no signal.",
    predictions: [
      { key: 'real-higher', text: 'The real recipe ends clearly above the null control' },
      { key: 'same', text: 'Both end about the same: it is the updates, not the reward' },
      { key: 'null-higher', text: 'The null control ends higher' },
    ],
    judge: { kind: 'ends', aHigher: 'real-higher', same: 'same', aLower: 'null-higher' },
    arms: [
      { key: 'real', label: 'Recipe (real advantages)', config: { ...M } },
      { key: 'null', label: 'Null control (shuffled)', config: { ...M, advantages: 'shuffled' } },
    ],
    charts: [
      {
        metric: 'reward/mean',
        role: 'outcome',
        why: 'The training reward: the recipe climbs, the null control drifts down.',
      },
      {
        metric: 'losses/kl',
        role: 'mechanism',
        why: 'KL to the SFT policy: with no signal the updates are a random walk away from the start.',
      },
      {
        metric: 'charts/delivery',
        role: 'mechanism',
        why: 'Share of rollouts that hand in a plan: the null control unlearns delivering.',
      },
    ],
    paper: 'The paper reports no null control; its 3B recipe reaches 49.9 % from an SFT start of 12.2 % (T1).',
  },
  {
    id: 'dense-reward',
    short: 'Dense reward',
    title: 'What a dense reward pays for',
    question:
      'The dense Sum reward pays for every check a plan passes. What does a small model learn from it — to be right, or to hand something in?',
    setup:
      'Scale s, GRPO. One arm trains on Sum (partial credit per check), the other on Success (1 only when every check passes). Watch delivery against success on the training rollouts.',
    predictions: [
      { key: 'delivery', text: 'Delivery rises more than success does' },
      { key: 'success', text: 'Success rises at least as much as delivery' },
      { key: 'neither', text: 'Neither rises by 3 points or more' },
    ],
    judge: {
      kind: 'rises',
      metrics: ['charts/delivery', 'charts/success'],
      keys: ['delivery', 'success'],
      neither: 'neither',
      rise: 0.03,
    },
    arms: [
      { key: 'sum', label: 'Sum (dense)', config: { scale: 's', reward: 'sum' } },
      { key: 'success', label: 'Success (sparse)', config: { scale: 's', reward: 'success' } },
    ],
    charts: [
      {
        metric: 'charts/delivery',
        role: 'mechanism',
        why: 'Share of training rollouts that deliver a plan: what partial credit buys first.',
      },
      {
        metric: 'charts/success',
        role: 'outcome',
        why: 'Share of training rollouts passing every check: the thing we want.',
      },
      {
        metric: 'charts/informative_groups',
        role: 'mechanism',
        why: "Of the step's 4 groups (a query's 8 rollouts each), those whose rewards differ: a sparse reward at s leaves most groups with nothing to learn from.",
      },
    ],
    paper: "The paper's 1.5B Sum run reaches 33.1 % from 6.9 % SFT (T1); it does not report delivery.",
  },
  {
    id: 'tool-failures',
    short: 'Tool failures',
    title: 'Tool failures starve the signal',
    question: 'If one tool call in ten fails at random, does the agent still learn as well?',
    setup:
      'Scale m, GRPO, the Curriculum reward (Sum → Macro → Success). One arm with 10 % of tool calls failing at random, one with none (finding T7).',
    predictions: [
      { key: 'lower', text: 'With 10 % failures the run ends clearly lower' },
      { key: 'same', text: 'About the same: the agent routes around failures' },
      { key: 'higher', text: 'Failures help: they make the agent more robust' },
    ],
    judge: { kind: 'ends', aHigher: 'higher', same: 'same', aLower: 'lower' },
    arms: [
      { key: 'failures', label: '10 % tool failures', config: { ...CURRICULUM, toolFailureRate: 0.1 } },
      { key: 'clean', label: 'No failures', config: { ...CURRICULUM } },
    ],
    charts: [
      {
        metric: 'charts/informative_groups',
        role: 'mechanism',
        why: "Of the step's 4 groups (a query's 8 rollouts each), those whose rewards differ: once the reward turns strict, failed calls leave groups with no success to learn from.",
      },
      {
        metric: 'charts/tool_failures',
        role: 'mechanism',
        why: 'Injected failures per rollout: what the environment took away.',
      },
      { metric: 'charts/success', role: 'outcome', why: 'Share of training rollouts passing every check.' },
    ],
    pair: { finding: 'T7', higher: 'success · 0 %', lower: 'success · 10 %', higherArm: 'clean' },
    paper:
      'The paper: 5 % random tool errors train as well as none; at 10 % failed calls starve the reward and success drops (T7; no number given).',
  },
  {
    id: 'hard-only',
    short: 'Hard-only data',
    title: 'Hard-only data',
    question: 'Is it better to train only on the hardest queries, or on a mix of easy, medium and hard?',
    setup:
      'Scale m, GRPO, the Curriculum reward. One arm trains on hard queries only (0:0:1), the other on the mix 4:3:3 (finding T5).',
    predictions: [
      { key: 'lower', text: 'Hard-only ends clearly lower' },
      { key: 'same', text: 'About the same' },
      { key: 'higher', text: 'Hard-only ends higher: it trains on what matters' },
    ],
    judge: { kind: 'ends', aHigher: 'higher', same: 'same', aLower: 'lower' },
    arms: [
      { key: 'hard', label: 'Hard only (0:0:1)', config: { ...CURRICULUM, mix: [0, 0, 1] } },
      { key: 'mixed', label: 'Mixed (4:3:3)', config: { ...CURRICULUM } },
    ],
    charts: [
      {
        metric: 'charts/informative_groups',
        role: 'mechanism',
        why: "Of the step's 4 groups (a query's 8 rollouts each), those whose rewards differ: hard queries that no rollout solves teach nothing once the reward turns strict.",
      },
      {
        metric: 'charts/success',
        role: 'outcome',
        why: "Share of training rollouts passing every check (on each arm's own training queries).",
      },
    ],
    pair: { finding: 'T5', higher: 'success · 4:3:3', lower: 'success · hard only', higherArm: 'mixed' },
    paper: 'The paper (3B): hard-only reaches 25.9 %, the mixed 4:3:3 set 49.9 % (T5).',
  },
  {
    id: 'seeds',
    short: 'Seeds',
    title: 'One run proves nothing',
    question: 'Run the same setting twice, changing only the random seed. How far apart do the two runs end?',
    setup:
      'Scale m, GRPO, the Curriculum reward — the setting with the widest spread among the committed runs. Both arms are the same setting; each draws a new seed.',
    predictions: [
      { key: 'close', text: 'Within 3 points of each other' },
      { key: 'some', text: '3 to 10 points apart' },
      { key: 'far', text: 'More than 10 points apart' },
    ],
    judge: {
      kind: 'spread',
      bounds: [
        [3, 'close'],
        [10, 'some'],
      ],
      beyond: 'far',
    },
    arms: [
      { key: 'seed-a', label: 'First seed', config: { ...CURRICULUM } },
      { key: 'seed-b', label: 'Second seed', config: { ...CURRICULUM } },
    ],
    seedsOnly: true,
    charts: [
      {
        metric: 'charts/success',
        role: 'outcome',
        why: 'Share of training rollouts passing every check: same setting, different dice.',
      },
      {
        metric: 'charts/informative_groups',
        role: 'mechanism',
        why: "Of the step's 4 groups (a query's 8 rollouts each), those whose rewards differ: the run learns only from these, and which ones it gets is luck.",
      },
    ],
    paper:
      'The paper reports one number per cell (e.g. 49.9 % for this setting at 3B, T5), with no spread across seeds.',
  },
];

export function lessonById(id: string): Lesson | undefined {
  return LESSONS.find((l) => l.id === id);
}

/** the complete config of an arm's run: defaults, the findings' standard size, the arm, the seed */
export function armConfig(arm: LessonArm, seed: number, size: Partial<LabConfig> = {}): LabConfig {
  return { ...defaultConfig(), ...LESSON_SIZE, ...arm.config, ...size, seed } as LabConfig;
}

/**
 * In an episode's tool calls, the first that failed and what the agent did next (its next call, or that it wrote its
 * plan): the moment a tool-failures lesson is about. null when no call failed.
 */
export function afterFailure(
  calls: readonly { call: string; error: boolean; injected?: boolean }[],
): { failed: string; injected: boolean; next: string | null; index: number } | null {
  const i = calls.findIndex((c) => c.error);
  if (i < 0) return null;
  return { failed: calls[i].call, injected: !!calls[i].injected, next: calls[i + 1]?.call ?? null, index: i };
}
