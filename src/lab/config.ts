// The one declared table of every experiment setting: each row holds its default, bounds, one-line
// doc, the stage that reads it, the RL algorithms it applies to and whether the RL trainer's config holds it
// (under the same name). The page builds its controls from it (and disables a control its stage or algorithm does
// not read, saying why), the URL codec (urlState.ts) validates against it, the CLI reads the same
// hash, and the trainer's config is derived from it (src/rl/rlConfig.ts rlConfigFromLab). A new knob
// is one row here.
//
// The paper's exact RL hyper-parameters are not public; defaults follow the closest published
// recipes (veRL GRPO, DAPO, ARPO reference scripts).

export type SettingGroup = 'stage' | 'axes' | 'reward' | 'data' | 'algorithm' | 'environment' | 'training';

/** the RL algorithms, in the page's order */
export const ALGORITHMS = ['grpo', 'dapo', 'arpo'] as const;
export type AlgorithmName = (typeof ALGORITHMS)[number];
const ALGORITHM_LABELS: Readonly<Record<AlgorithmName, string>> = { grpo: 'GRPO', dapo: 'DAPO', arpo: 'ARPO' };

/** the two stages a run can be */
export type Stage = 'rl' | 'sft';

/** the RL algorithms a setting applies to; the others ignore it */
export interface AlgorithmScope {
  only: readonly AlgorithmName[];
  /** why the other algorithms ignore it, one line (the page and the CLI say it) */
  why: string;
  /** what the trainer uses under the other algorithms: a number, another setting's value, or (absent)
   *  this setting's default, which they never read */
  otherwise?: number | { sameAs: string };
}

/** a setting read only while another setting has one value: otherwise the trainer's config leaves its field
 *  out (so a run that does not use it keeps the config, summary and resume fingerprint it had before the
 *  setting existed), the page disables its control and the CLI names it ignored */
export interface ReadOnlyWhen {
  setting: string;
  is: string;
  /** why it is not read otherwise, one line */
  why: string;
}

interface SettingBase {
  /** short label for the page */
  label: string;
  /** one line a user can read to know what the setting does */
  doc: string;
  group: SettingGroup;
  /** one of the study's five design axes (shown first on the page) */
  axis?: true;
  /** the one stage that reads it (absent: both) */
  stage?: Stage;
  /** the RL algorithms it applies to (absent: every one) */
  algorithms?: AlgorithmScope;
  /** the one value of another setting under which it is read (absent: always) */
  onlyWhen?: ReadOnlyWhen;
  /** the RL trainer's config holds it, under this name and with this value (src/rl/rlConfig.ts); absent where
   *  the trainer's config has none (the RL job reads the scale and the data axes itself, the SFT job its own
   *  settings) */
  trainer?: true;
}

export interface IntSetting extends SettingBase {
  kind: 'int';
  default: number;
  min: number;
  max: number;
}

export interface FloatSetting extends SettingBase {
  kind: 'float';
  default: number;
  min: number;
  max: number;
  /** a sensible increment for the page's number input */
  step: number;
  /** a probability, shown as a percentage slider */
  percent?: true;
}

export interface ChoiceSetting<C extends string = string> extends SettingBase {
  kind: 'choice';
  choices: readonly C[];
  /** a label per choice, for the page */
  choiceLabels: Readonly<Record<C, string>>;
  default: C;
}

/** easy:medium:hard proportions, e.g. 4:3:3 (non-negative integers, not all zero) */
export interface MixSetting extends SettingBase {
  kind: 'mix';
  default: Mix;
  /** largest single part */
  max: number;
}

export type Mix = readonly [easy: number, medium: number, hard: number];

export type Setting = IntSetting | FloatSetting | ChoiceSetting | MixSetting;

/** a choice row; `trainer` stays in its type, so the trainer's config is typed by the rows that set it */
function choice<const C extends string, T extends true | undefined = undefined>(
  s: Omit<ChoiceSetting<C>, 'kind' | 'trainer'> & { trainer?: T },
): ChoiceSetting<C> & (T extends true ? { trainer: true } : unknown) {
  return { kind: 'choice', ...s } as ChoiceSetting<C> & (T extends true ? { trainer: true } : unknown);
}

export const SETTINGS = {
  // ---- what "Start" runs ---------------------------------------------------------------------
  stage: choice({
    label: 'Stage',
    doc: 'RL (GRPO / DAPO / ARPO from an SFT starting point) or SFT (supervised fine-tuning on teacher trajectories).',
    group: 'stage',
    choices: ['rl', 'sft'],
    choiceLabels: { rl: 'RL', sft: 'SFT' },
    default: 'rl',
  }),

  // ---- the five axes of the study ------------------------------------------------------------
  scale: choice({
    label: 'Model scale',
    doc: 'Policy size; s : m : l ≈ 1 : 2 : 4.7 in parameters, mirroring Qwen2.5 1.5B / 3B / 7B.',
    group: 'axes',
    axis: true,
    choices: ['s', 'm', 'l'],
    choiceLabels: { s: 'S · 1.5B', m: 'M · 3B', l: 'L · 7B' },
    // m stays the default: the findings of the paper's 3B (T4, T5, T7) name m as their base, and a user's
    // setting only overrides a finding's base where it differs from the default. It is also where the RL
    // recipe learns most clearly from the shipped checkpoints (results/rl-recipe/pretrained-start).
    default: 'm',
  }),
  reward: choice({
    label: 'Reward shaping',
    doc: 'Sum (dense), Macro (semi-sparse), Success (sparse) or Curriculum (Sum → Macro → Success).',
    group: 'axes',
    stage: 'rl',
    trainer: true,
    axis: true,
    choices: ['sum', 'macro', 'success', 'curriculum'],
    choiceLabels: { sum: 'Sum', macro: 'Macro', success: 'Success', curriculum: 'Curriculum' },
    // Sum: the measured recipe's reward (results/rl-recipe); the paper's best varies by scale (finding T1)
    default: 'sum',
  }),
  trainSize: {
    kind: 'int',
    label: 'Training queries',
    doc: 'Number of RL training queries (the paper sweeps 100 … 2K; sweet spot near 1K).',
    group: 'axes',
    axis: true,
    default: 1000,
    min: 10,
    max: 5000,
  } satisfies IntSetting,
  mix: {
    kind: 'mix',
    label: 'Difficulty mix',
    doc: 'Proportions of easy : medium : hard queries in the training set (paper default 4:3:3).',
    group: 'axes',
    axis: true,
    default: [4, 3, 3],
    max: 100,
  } satisfies MixSetting,
  algorithm: choice({
    label: 'Algorithm',
    doc: 'GRPO, DAPO (clip-higher, dynamic sampling) or ARPO (entropy-triggered branching rollouts).',
    group: 'axes',
    stage: 'rl',
    trainer: true,
    axis: true,
    choices: ALGORITHMS,
    choiceLabels: ALGORITHM_LABELS,
    default: 'grpo',
  }),
  toolFailureRate: {
    kind: 'float',
    label: 'Tool failure rate',
    doc: 'Probability that a tool call returns an error during RL (paper: 0 … 10 %).',
    group: 'axes',
    stage: 'rl',
    trainer: true,
    axis: true,
    default: 0,
    min: 0,
    max: 0.3,
    step: 0.01,
    percent: true,
  } satisfies FloatSetting,

  // ---- reward schedule -----------------------------------------------------------------------
  curriculumSwitch1: {
    kind: 'float',
    label: 'Curriculum: Sum → Macro',
    doc: 'Fraction of training after which the curriculum switches from Sum to Macro.',
    group: 'reward',
    stage: 'rl',
    trainer: true,
    default: 0.333,
    min: 0,
    max: 1,
    step: 0.01,
  } satisfies FloatSetting,
  curriculumSwitch2: {
    kind: 'float',
    label: 'Curriculum: Macro → Success',
    doc: 'Fraction of training after which the curriculum switches from Macro to Success.',
    group: 'reward',
    stage: 'rl',
    trainer: true,
    default: 0.667,
    min: 0,
    max: 1,
    step: 0.01,
  } satisfies FloatSetting,
  curriculumSwitch: choice({
    label: 'Curriculum: when to switch',
    doc: 'Fixed: at the two fractions of training above. Adaptive: to the next, sparser reward once it would leave signal (rewards not all equal) in enough of the step\'s groups; never back.',
    group: 'reward',
    stage: 'rl',
    choices: ['fixed', 'adaptive'],
    choiceLabels: { fixed: 'Fixed steps', adaptive: 'Adaptive (by signal)' },
    default: 'fixed',
  }),
  curriculumSignalShare: {
    kind: 'float',
    label: 'Curriculum: signal share to switch',
    doc: 'Adaptive curriculum: the share of a step\'s groups that must carry signal under the next, sparser reward before the curriculum moves to it (0: at once; 1: only when every group would).',
    group: 'reward',
    stage: 'rl',
    onlyWhen: { setting: 'curriculumSwitch', is: 'adaptive', why: 'the fixed curriculum switches at its two fractions of training' },
    trainer: true,
    // the least share that keeps an advantage in half a step's groups; on runs none of the findings' it let the
    // second switch fire within a run at s and at m (0.75 did not): results/curriculum-share
    default: 0.5,
    min: 0,
    max: 1,
    step: 0.05,
    percent: true,
  } satisfies FloatSetting,

  // ---- algorithm knobs -----------------------------------------------------------------------
  clipLow: {
    kind: 'float',
    label: 'Clip ε low',
    doc: 'Lower PPO clip range: the ratio is clipped below at 1 − ε_low.',
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    default: 0.2,
    min: 0,
    max: 1,
    step: 0.01,
  } satisfies FloatSetting,
  clipHigh: {
    kind: 'float',
    label: 'Clip ε high',
    doc: "DAPO's clip-higher: the ratio is clipped above at 1 + ε_high (0.28); GRPO and ARPO clip symmetrically at ε low.",
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    algorithms: { only: ['dapo'], why: 'GRPO and ARPO clip symmetrically, at ε low', otherwise: { sameAs: 'clipLow' } },
    default: 0.28,
    min: 0,
    max: 1,
    step: 0.01,
  } satisfies FloatSetting,
  klCoef: {
    kind: 'float',
    label: 'KL coefficient',
    doc: 'Weight of the k3 KL penalty to the frozen SFT reference (GRPO only; DAPO and ARPO use none, as their reference scripts).',
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    algorithms: {
      only: ['grpo'],
      why: 'DAPO and ARPO train with no KL penalty, as their reference scripts do',
      otherwise: 0,
    },
    default: 0.001,
    min: 0,
    max: 1,
    step: 0.001,
  } satisfies FloatSetting,
  dapoMaxGenBatches: {
    kind: 'int',
    label: 'DAPO max generation batches',
    doc: 'DAPO dynamic sampling: generate at most this many batches to fill one of informative groups.',
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    algorithms: { only: ['dapo'], why: 'only DAPO samples dynamically' },
    default: 3,
    min: 1,
    max: 20,
  } satisfies IntSetting,
  overlongBuffer: {
    kind: 'int',
    label: 'DAPO overlong buffer',
    doc: 'Tokens before the length limit where the soft overlong penalty ramps linearly to −1.',
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    algorithms: { only: ['dapo'], why: 'only DAPO penalises overlong rollouts', otherwise: 0 },
    default: 64,
    min: 0,
    max: 1024,
  } satisfies IntSetting,
  arpoAlpha: {
    kind: 'float',
    label: 'ARPO α',
    doc: 'ARPO base branching probability after a tool observation.',
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    algorithms: { only: ['arpo'], why: 'only ARPO branches its rollouts' },
    default: 0.5,
    min: 0,
    max: 1,
    step: 0.05,
  } satisfies FloatSetting,
  arpoBeta: {
    kind: 'float',
    label: 'ARPO β',
    doc: 'ARPO weight of the entropy rise ΔH in the branching probability clip(α + β·ΔH, 0, 1).',
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    algorithms: { only: ['arpo'], why: 'only ARPO branches its rollouts' },
    default: 0.2,
    min: 0,
    max: 5,
    step: 0.05,
  } satisfies FloatSetting,
  arpoK: {
    kind: 'int',
    label: 'ARPO entropy window k',
    doc: 'ARPO measures entropy over the next k generated tokens after each tool observation.',
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    algorithms: { only: ['arpo'], why: 'only ARPO branches its rollouts' },
    default: 10,
    min: 1,
    max: 64,
  } satisfies IntSetting,
  arpoAdvantage: choice({
    label: 'ARPO advantage',
    doc: 'Soft: GRPO advantages over all M rollouts. Hard: tokens shared by branches get the mean advantage of the rollouts sharing them.',
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    algorithms: { only: ['arpo'], why: 'only ARPO has branches whose shared tokens an advantage could pool' },
    choices: ['soft', 'hard'],
    choiceLabels: { soft: 'Soft', hard: 'Hard' },
    default: 'soft',
  }),
  arpoZ: {
    kind: 'int',
    label: 'ARPO branches Z',
    doc: 'ARPO partial rollouts branched at a high-entropy step.',
    group: 'algorithm',
    stage: 'rl',
    trainer: true,
    algorithms: { only: ['arpo'], why: 'only ARPO branches its rollouts' },
    default: 1,
    min: 1,
    max: 8,
  } satisfies IntSetting,

  // ---- environment ---------------------------------------------------------------------------
  teacherFailureRate: {
    kind: 'float',
    label: 'Teacher failure rate',
    doc: 'Tool failures (and retries) in the SFT data; the paper’s teacher saw none.',
    group: 'environment',
    stage: 'sft',
    default: 0,
    min: 0,
    max: 0.3,
    step: 0.01,
    percent: true,
  } satisfies FloatSetting,
  planDecoding: choice({
    label: 'Plan decoding',
    doc: 'Free: the agent may cite a row or leg its calls never returned (the plan is then undelivered). Constrained: such choices are masked while it writes the plan.',
    group: 'environment',
    trainer: true,
    choices: ['free', 'constrained'],
    choiceLabels: { free: 'Free', constrained: 'Constrained' },
    // constrained: free decoding spends RL's signal on delivering at all (results/rl-recipe)
    default: 'constrained',
  }),
  worldSize: choice({
    label: 'World size',
    doc: 'Size of the generated TravelPlanner world: tiny (tests), small, standard (the lab).',
    group: 'environment',
    choices: ['tiny', 'small', 'standard'],
    choiceLabels: { tiny: 'Tiny', small: 'Small', standard: 'Standard' },
    default: 'standard',
  }),

  // ---- training ------------------------------------------------------------------------------
  groupSize: {
    kind: 'int',
    label: 'Group size',
    doc: 'Rollouts per query; advantages are normalised within a group (ARPO: the budget M).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 8,
    min: 1,
    max: 64,
  } satisfies IntSetting,
  queriesPerStep: {
    kind: 'int',
    label: 'Queries per step',
    doc: 'Training queries rolled out per RL step (each as a group of G rollouts).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 4,
    min: 1,
    max: 64,
  } satisfies IntSetting,
  evalEvery: {
    kind: 'int',
    label: 'Evaluate every',
    doc: 'Steps between evaluations on the validation queries and the OOD tool-QA suite (also at step 0 and at the end).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 10,
    min: 1,
    max: 10000,
  } satisfies IntSetting,
  evalQueries: {
    kind: 'int',
    label: 'Validation queries',
    doc: 'Held-out queries in each evaluation (the first n of the validation split of 300; 300 gives a 95 % interval of about ±5 points).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 100,
    min: 0,
    max: 300,
  } satisfies IntSetting,
  evalSamples: {
    kind: 'int',
    label: 'Sampled evaluation k',
    doc: 'Samples per validation query at the training temperature in each evaluation, beside the greedy rollout (sampled success with its interval; 0 = off, the default: k samples of 100 queries cost about k greedy evaluations; add &evalSamples=4 to a link for it).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 0,
    min: 0,
    max: 16,
  } satisfies IntSetting,
  evalToolQa: {
    kind: 'int',
    label: 'OOD tasks',
    doc: 'Unseen tool-QA tasks in each RL evaluation (the first n of the out-of-domain suite, grown to 100 with the SFT card’s own 63 first).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 32,
    min: 0,
    max: 100,
  } satisfies IntSetting,
  steps: {
    kind: 'int',
    label: 'Training steps',
    doc: 'Number of RL steps of the run (the measured recipe: 40 steps of 4 queries × 8 rollouts; results/rl-recipe).',
    group: 'training',
    trainer: true,
    default: 40,
    min: 1,
    max: 20000,
  } satisfies IntSetting,
  learningRate: {
    kind: 'float',
    label: 'Learning rate',
    doc: 'AdamW learning rate of the policy during RL.',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 0.0001,
    min: 1e-7,
    max: 0.1,
    step: 0.00001,
  } satisfies FloatSetting,
  warmupSteps: {
    kind: 'int',
    label: 'LR warm-up steps',
    doc: 'RL steps over which the learning rate ramps up linearly (veRL optim.lr_warmup_steps); 0 = none.',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 0,
    min: 0,
    max: 1000,
  } satisfies IntSetting,
  temperature: {
    kind: 'float',
    label: 'Rollout temperature',
    doc: 'Sampling temperature of training rollouts (and of sampled evaluation); below 1 the group explores near what the policy already does well (0.7: the measured recipe, results/rl-recipe; at 1 the s policy delivers 31–41 % of sampled plans and RL learns to deliver, not to plan).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 0.7,
    min: 0.1,
    max: 2,
    step: 0.05,
  } satisfies FloatSetting,
  miniBatches: {
    kind: 'int',
    label: 'PPO mini-batches',
    doc: 'Optimizer steps per RL step: whole groups cut in order into this many mini-batches (veRL ppo_mini_batch_size).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 2,
    min: 1,
    max: 16,
  } satisfies IntSetting,
  microBatchTokens: {
    kind: 'int',
    label: 'Micro-batch tokens',
    doc: 'Token budget of a micro-batch: each mini-batch’s gradient is summed over micro-batches of at most this many padded tokens (veRL dynamic batch size). The same update; lower it if a step runs out of memory. 0 = whole mini-batches. WebGPU takes 4× this (fewer, larger micro-batches: a GPU pays per kernel launch).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    default: 2048,
    min: 0,
    max: 65536,
  } satisfies IntSetting,
  advantages: choice({
    label: 'Advantages',
    doc: 'Real, or shuffled across the step’s rollouts: the null control, the same run with no link between a rollout and its reward (how far RL drifts with no signal).',
    group: 'training',
    stage: 'rl',
    trainer: true,
    choices: ['real', 'shuffled'],
    choiceLabels: { real: 'Real', shuffled: 'Shuffled (null control)' },
    default: 'real',
  }),
  sftLearningRate: {
    kind: 'float',
    label: 'SFT learning rate',
    doc: 'Peak AdamW learning rate of supervised fine-tuning (linear warm-up, then cosine decay to a tenth).',
    group: 'training',
    stage: 'sft',
    default: 0.003,
    min: 1e-6,
    max: 0.1,
    step: 0.0001,
  } satisfies FloatSetting,
  seed: {
    kind: 'int',
    label: 'Seed',
    doc: 'Seeds every random draw of the run; on the cpu backend the same seed gives the same curves.',
    group: 'training',
    trainer: true,
    default: 1,
    min: 0,
    max: 2147483647,
  } satisfies IntSetting,
} as const;

export type SettingKey = keyof typeof SETTINGS;

type ValueOf<S> = S extends ChoiceSetting<infer C> ? C : S extends MixSetting ? Mix : number;

/** one complete experiment configuration */
export type LabConfig = { -readonly [K in SettingKey]: ValueOf<(typeof SETTINGS)[K]> };

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** the settings the RL trainer's config holds, under the same names (the rows with `trainer`) */
export type TrainerSettingKey = {
  [K in SettingKey]: (typeof SETTINGS)[K] extends { trainer: true } ? K : never;
}[SettingKey];

export const GROUP_LABELS: Record<SettingGroup, string> = {
  stage: 'Stage',
  axes: 'Design axes',
  reward: 'Reward schedule',
  data: 'Data',
  algorithm: 'Algorithm knobs',
  environment: 'Environment',
  training: 'Training',
};

export function defaultConfig(): LabConfig {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const s: Setting = SETTINGS[key];
    out[key] = s.kind === 'mix' ? [...s.default] : s.default;
  }
  return out as LabConfig;
}

/**
 * Checks one value against its setting; returns the reason it is invalid, or null when valid.
 * Shared by the URL codec and the page's inputs.
 */
export function invalidReason(key: SettingKey, value: unknown): string | null {
  const s: Setting = SETTINGS[key];
  switch (s.kind) {
    case 'choice':
      return typeof value === 'string' && s.choices.includes(value)
        ? null
        : `must be one of ${s.choices.join(', ')}`;
    case 'int':
    case 'float': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (s.kind === 'int' && !Number.isInteger(value)) return 'must be a whole number';
      if (value < s.min || value > s.max) return `must be between ${s.min} and ${s.max}`;
      return null;
    }
    case 'mix': {
      if (!Array.isArray(value) || value.length !== 3) return 'must be three parts, easy:medium:hard';
      if (!value.every((v) => Number.isInteger(v) && v >= 0 && v <= s.max))
        return `each part must be a whole number from 0 to ${s.max}`;
      if (value.every((v) => v === 0)) return 'at least one part must be above 0';
      return null;
    }
  }
}

/** Checks relations between settings; returns [keys involved, reason] pairs. */
export function crossFieldProblems(config: LabConfig): { keys: SettingKey[]; message: string }[] {
  const problems: { keys: SettingKey[]; message: string }[] = [];
  if (config.curriculumSwitch1 >= config.curriculumSwitch2) {
    problems.push({
      keys: ['curriculumSwitch1', 'curriculumSwitch2'],
      message: 'the curriculum must switch to Macro before it switches to Success',
    });
  }
  return problems;
}

/** A readable one-line summary of the five axes, e.g. for the runs list. */
export function describeAxes(config: LabConfig): string {
  const s = SETTINGS;
  return [
    s.scale.choiceLabels[config.scale],
    s.reward.choiceLabels[config.reward],
    s.algorithm.choiceLabels[config.algorithm],
    `${config.trainSize} q · ${config.mix.join(':')}`,
    `${Math.round(config.toolFailureRate * 100)}% tool fail`,
  ].join(' · ');
}

/**
 * The settings only one stage reads (the rest: both), from the table's `stage`. The page greys the other
 * stage's controls with this reason; test/worker/settingStages.test.ts checks the table against what the
 * SFT job and the RL config read.
 */
export const STAGE_ONLY: Readonly<Partial<Record<SettingKey, Stage>>> = Object.fromEntries(
  SETTING_KEYS.flatMap((k) => {
    const only = (SETTINGS[k] as Setting).stage;
    return only ? [[k, only]] : [];
  }),
);

/** why a setting does nothing in this stage, or null when the stage reads it */
export function unusedInStage(key: SettingKey, stage: Stage): string | null {
  const only = STAGE_ONLY[key];
  if (!only || only === stage) return null;
  return only === 'rl'
    ? 'RL only: SFT learns from the teacher’s trajectories, with no reward, algorithm, rollouts or tool failures'
    : 'SFT only: RL starts from the checkpoint under Starting point';
}

/** why the chosen RL algorithm ignores a setting ("DAPO only: …"), or null when it reads it */
export function unusedByAlgorithm(key: SettingKey, algorithm: AlgorithmName): string | null {
  const scope = (SETTINGS[key] as Setting).algorithms;
  if (!scope || scope.only.includes(algorithm)) return null;
  return `${scope.only.map((a) => ALGORITHM_LABELS[a]).join(' and ')} only: ${scope.why}`;
}

/** why `config` leaves a setting unread by its `onlyWhen` ("Adaptive curriculum only: …"), or null when it reads it
 *  (a config that does not give the other setting has it at its default) */
export function unusedByCondition(key: SettingKey, config: Partial<LabConfig>): string | null {
  const when = (SETTINGS[key] as Setting).onlyWhen;
  if (!when) return null;
  const other = SETTINGS[when.setting as SettingKey] as Setting;
  const value = (config as Record<string, unknown>)[when.setting] ?? other.default;
  if (value === when.is) return null;
  const label = other.kind === 'choice' ? (other.choiceLabels as Record<string, string>)[when.is] : when.is;
  return `${other.label} = ${label} only: ${when.why}`;
}

/** why a run of `config` does not read a setting (its stage first, then its algorithm, then another setting's
 *  value), or null when it does */
export function unusedIn(
  key: SettingKey,
  config: Pick<LabConfig, 'stage' | 'algorithm'> & Partial<LabConfig>,
): string | null {
  return (
    unusedInStage(key, config.stage) ??
    (config.stage === 'rl' ? (unusedByAlgorithm(key, config.algorithm) ?? unusedByCondition(key, config)) : null)
  );
}

/** the settings `config` moves off their defaults that its run does not read, each with why: what the
 *  CLI names as ignored (the page shows the same controls disabled) */
export function ignoredSettings(config: LabConfig): { key: SettingKey; why: string }[] {
  const defaults = defaultConfig();
  return SETTING_KEYS.flatMap((key) => {
    const why = unusedIn(key, config);
    return why !== null && JSON.stringify(config[key]) !== JSON.stringify(defaults[key]) ? [{ key, why }] : [];
  });
}
