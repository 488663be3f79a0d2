// The RL trainer's configuration (TRL-style: every knob documented with the paper behind it), derived
// from the lab's settings table (src/lab/config.ts), which holds each knob's default, bounds, the
// algorithms it applies to and its name here.
// No tfjs here: the page and the CLI read it without loading a backend.
//
// The Agent-STAR paper does not publish its RL hyper-parameters; these follow the reference code
// the paper builds on: veRL's GRPO recipe, DAPO's (arXiv 2503.14476) and ARPO's (arXiv 2507.19849)
// scripts, scaled to the lab's toy models.
import {
  SETTINGS,
  SETTING_KEYS,
  defaultConfig,
  type AlgorithmName,
  type LabConfig,
  type Setting,
  type SettingKey,
} from '../lab/config.ts';
import type { RewardKind } from '../env/rewards.ts';
import type { LossAggregation } from './rlMath.ts';

export type Algorithm = AlgorithmName;

export interface RlConfig {
  /** GRPO (Shao et al. 2024), DAPO (Yu et al. 2025) or ARPO (Dong et al. 2025) */
  algorithm: Algorithm;
  /** Sum, Macro, Success or Curriculum (Planner-R1's dense → sparse ladder) */
  reward: RewardKind;
  /** Curriculum: fractions of training at which Sum → Macro and Macro → Success */
  curriculumSwitches: [number, number];
  /** Curriculum, adaptive switch (present only then; absent: the switch points above): move to the next, sparser
   *  stage once it would leave signal in at least this share of a step's groups (env/rewards.ts adaptiveNextStage) */
  curriculumSignalShare?: number;
  /** RL steps (each: roll out, score, update) */
  steps: number;
  /** training queries per step (veRL train_batch_size) */
  queriesPerStep: number;
  /** rollouts per query G (veRL rollout.n; ARPO's budget M) */
  groupSize: number;
  /** AdamW learning rate (constant after the warm-up; veRL's actor default schedule) */
  learningRate: number;
  /** RL steps over which the learning rate ramps linearly from lr/warmup to lr (veRL optim.lr_warmup_steps) */
  lrWarmupSteps: number;
  /** null control: advantages shuffled across the step's rollouts — the same update sizes with no
   *  link between a rollout and its reward; the drift baseline every gain is read against */
  nullControl: boolean;
  /** optimizer steps per RL step: the batch is cut into this many PPO mini-batches (veRL ppo_mini_batch_size) */
  miniBatches: number;
  /** token budget of a micro-batch (veRL's dynamic batch size, ppo_max_token_len_per_gpu): each mini-batch's gradient
   * is accumulated over micro-batches of at most this many padded tokens, rows packed by length — the same update, with
   *  peak memory set by this budget instead of the group size; 0 = no budget (whole mini-batches, the older path) */
  microBatchTokens: number;
  /** lower clip ε_low: the ratio is clipped below at 1 − ε_low (PPO, Schulman et al. 2017) */
  clipLow: number;
  /** upper clip ε_high (DAPO's clip-higher: 0.28; GRPO and ARPO clip symmetrically) */
  clipHigh: number;
  /** dual-clip constant c for negative advantages (Ye et al. 2020; veRL clip_ratio_c) */
  dualClip: number;
  /** weight of the k3 KL penalty to the frozen SFT reference (veRL use_kl_loss, low_var_kl); 0 = no reference */
  klCoef: number;
  /** token-mean (DAPO's token-level loss) or seq-mean-token-mean (GRPO's original) */
  lossAggregation: LossAggregation;
  /** sampling temperature of training rollouts */
  temperature: number;
  /** clip the global gradient norm to this (veRL grad_clip) */
  maxGradNorm: number;
  /** probability that a tool call fails during rollouts (the study's environment-stability axis) */
  toolFailureRate: number;
  /** mask plan choices the calls cannot resolve (plan.ts unresolvableNext); RL scores the masked distribution */
  constrainPlan: boolean;
  /** tool calls per episode */
  maxTurns: number;
  /** DAPO dynamic sampling: drop groups whose rewards all match, and generate more to fill the batch */
  dynamicSampling: boolean;
  /** DAPO: generation batches per step at most, before training on what was kept */
  maxGenBatches: number;
  /** DAPO soft overlong punishment: tokens before the length limit where the penalty ramps to −1 (0 = off) */
  overlongBuffer: number;
  /** ARPO: rollouts started from the prompt per query (N; the rest of the budget M is branched) */
  arpoInitial: number;
  /** ARPO: base branching probability α */
  arpoAlpha: number;
  /** ARPO: weight β of the entropy rise ΔH */
  arpoBeta: number;
  /** ARPO: policy tokens after an observation whose entropy is measured (k) */
  arpoK: number;
  /** ARPO: partial rollouts branched per trigger (Z) */
  arpoBranches: number;
  /** ARPO advantage: `soft` (GRPO over all M) or `hard` (shared prefixes get the mean advantage) */
  arpoAdvantage: 'soft' | 'hard';
  /** evaluate (greedy, validation + OOD) every this many steps, at step 0 and at the end */
  evalEvery: number;
  /** validation queries evaluated (the first n of the validation split) */
  evalQueries: number;
  /** unseen tool-QA tasks evaluated (the OOD suite) */
  evalToolQa: number;
  /** samples per validation query at `temperature` in each evaluation, beside the greedy rollout (eval/sample_success;
   * 0 = off) */
  evalSamples: number;
  /** seeds the query order, sampling and tool failures */
  seed: number;
}

/** the trainer's knobs the page does not show: the same for every run of the lab */
const FIXED = {
  dualClip: 3,
  lossAggregation: 'token-mean',
  maxGradNorm: 1,
  maxTurns: 24,
} as const satisfies Partial<RlConfig>;

/** the trainer config's fields in the order it has always been written (summaries and resume fingerprints
 *  are JSON of it, so the order is part of what a run records); a field added since comes after them */
const FIELD_ORDER: readonly (keyof RlConfig)[] = [
  'algorithm',
  'reward',
  'curriculumSwitches',
  'steps',
  'queriesPerStep',
  'groupSize',
  'learningRate',
  'lrWarmupSteps',
  'nullControl',
  'miniBatches',
  'microBatchTokens',
  'clipLow',
  'clipHigh',
  'dualClip',
  'klCoef',
  'lossAggregation',
  'temperature',
  'maxGradNorm',
  'toolFailureRate',
  'constrainPlan',
  'maxTurns',
  'dynamicSampling',
  'maxGenBatches',
  'overlongBuffer',
  'arpoInitial',
  'arpoAlpha',
  'arpoBeta',
  'arpoK',
  'arpoBranches',
  'arpoAdvantage',
  'evalEvery',
  'evalQueries',
  'evalToolQa',
  'seed',
  'evalSamples',
];

/**
 * The RL config of a lab experiment (the page, `cli run` and `cli sweep` share it), read off the settings
 * table (src/lab/config.ts): each setting with a `trainer` field sets that field; under an algorithm a
 * setting does not apply to, the field takes the row's `otherwise` (KL 0 for DAPO and ARPO, clip-high =
 * clip-low for GRPO and ARPO) — the page shows that control disabled, and the CLI names it as ignored.
 */
export function rlConfigFromLab(lab: LabConfig): RlConfig {
  // dynamic sampling is what DAPO is, not a knob of it
  const c: Record<string, unknown> = { ...FIXED, dynamicSampling: lab.algorithm === 'dapo' };
  for (const key of SETTING_KEYS) {
    const s: Setting = SETTINGS[key];
    if (!s.trainer) continue;
    // a setting read only under another's value is left out of the config otherwise (see ReadOnlyWhen)
    if (s.onlyWhen && (lab as Record<string, unknown>)[s.onlyWhen.setting] !== s.onlyWhen.is) continue;
    let value: unknown = lab[key];
    const scope = s.algorithms;
    if (scope && !scope.only.includes(lab.algorithm)) {
      const other = scope.otherwise;
      value = other === undefined ? s.default : typeof other === 'number' ? other : lab[other.sameAs as SettingKey];
    }
    if (s.trainer.trueWhen !== undefined) value = value === s.trainer.trueWhen;
    if (s.trainer.index !== undefined) {
      const pair = (c[s.trainer.name] ??= []) as unknown[];
      pair[s.trainer.index] = value;
    } else c[s.trainer.name] = value;
  }
  c.arpoInitial = Math.max(1, Math.floor((c.groupSize as number) / 2)); // N = M/2, after the ARPO scripts
  const missing = FIELD_ORDER.filter((k) => !(k in c));
  if (missing.length > 0) throw new Error(`RL config: the settings table gives no ${missing.join(', ')}`);
  const order = [...FIELD_ORDER, ...Object.keys(c).filter((k) => !(FIELD_ORDER as readonly string[]).includes(k))];
  const config = Object.fromEntries(order.map((k) => [k, c[k]])) as unknown as RlConfig;
  validateRlConfig(config);
  return config;
}

/**
 * The RL config of the page's defaults under `algorithm`, with `overrides` on top: what a bench or a test
 * trains when it names only the knobs it varies. The same table as the page, so it measures the page's lab.
 */
export function rlConfigFor(algorithm: Algorithm, overrides: Partial<RlConfig> = {}): RlConfig {
  const c: RlConfig = { ...rlConfigFromLab({ ...defaultConfig(), algorithm }), ...overrides, algorithm };
  if (!overrides.arpoInitial) c.arpoInitial = Math.max(1, Math.floor(c.groupSize / 2));
  validateRlConfig(c);
  return c;
}

export function validateRlConfig(c: RlConfig): void {
  const nonNegInt = ['lrWarmupSteps'] as const;
  for (const k of nonNegInt)
    if (!Number.isInteger(c[k]) || c[k] < 0)
      throw new Error(`RL config: ${k} must be a non-negative integer, got ${c[k]}`);
  const posInt = [
    'steps',
    'queriesPerStep',
    'groupSize',
    'miniBatches',
    'maxTurns',
    'maxGenBatches',
    'arpoInitial',
    'arpoK',
    'arpoBranches',
    'evalEvery',
  ] as const;
  for (const k of posInt)
    if (!Number.isInteger(c[k]) || c[k] < 1) throw new Error(`RL config: ${k} must be a positive integer, got ${c[k]}`);
  for (const k of ['evalQueries', 'evalToolQa', 'overlongBuffer', 'microBatchTokens'] as const)
    if (!Number.isInteger(c[k]) || c[k] < 0)
      throw new Error(`RL config: ${k} must be a non-negative integer, got ${c[k]}`);
  if (!Number.isInteger(c.evalSamples) || c.evalSamples < 0)
    throw new Error(`RL config: evalSamples must be a non-negative integer, got ${c.evalSamples}`);
  for (const k of ['learningRate', 'temperature', 'maxGradNorm', 'dualClip'] as const)
    if (!(c[k] > 0)) throw new Error(`RL config: ${k} must be positive, got ${c[k]}`);
  for (const k of ['clipLow', 'clipHigh', 'klCoef', 'toolFailureRate'] as const)
    if (!(c[k] >= 0)) throw new Error(`RL config: ${k} must be ≥ 0, got ${c[k]}`);
  if (c.clipLow >= 1) throw new Error(`RL config: clipLow must be < 1, got ${c.clipLow}`);
  if (c.dualClip <= 1) throw new Error(`RL config: dualClip must be > 1, got ${c.dualClip}`);
  if (c.algorithm === 'arpo' && c.arpoInitial > c.groupSize)
    throw new Error(
      `RL config: ARPO starts ${c.arpoInitial} rollouts per query, more than the budget M = ${c.groupSize}`,
    );
  const share = c.curriculumSignalShare;
  if (share !== undefined && !(share >= 0 && share <= 1))
    throw new Error(`RL config: curriculumSignalShare must be in [0, 1], got ${share}`);
  const [a, b] = c.curriculumSwitches;
  if (!(a >= 0 && a <= b && b <= 1))
    throw new Error(`RL config: curriculum switches must satisfy 0 ≤ a ≤ b ≤ 1, got [${a}, ${b}]`);
}
