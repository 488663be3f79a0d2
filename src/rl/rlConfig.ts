// The RL trainer's configuration (TRL-style: every knob documented with the paper behind it), the
// per-algorithm defaults, and the mapping from the lab's experiment config (src/lab/config.ts).
// No tfjs here: the page and the CLI read it without loading a backend.
//
// The Agent-STAR paper does not publish its RL hyper-parameters; these follow the reference code
// the paper builds on: veRL's GRPO recipe, DAPO's (arXiv 2503.14476) and ARPO's (arXiv 2507.19849)
// scripts, scaled to the lab's toy models.
import type { LabConfig } from '../lab/config.ts';
import type { RewardKind } from '../env/rewards.ts';
import type { LossAggregation } from './rlMath.ts';

export type Algorithm = 'grpo' | 'dapo' | 'arpo';

export interface RlConfig {
  /** GRPO (Shao et al. 2024), DAPO (Yu et al. 2025) or ARPO (Dong et al. 2025) */
  algorithm: Algorithm;
  /** Sum, Macro, Success or Curriculum (Planner-R1's dense → sparse ladder) */
  reward: RewardKind;
  /** Curriculum: fractions of training at which Sum → Macro and Macro → Success */
  curriculumSwitches: [number, number];
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
  /** token budget of a micro-batch (veRL's dynamic batch size, ppo_max_token_len_per_gpu): each mini-batch's gradient is
   *  accumulated over micro-batches of at most this many padded tokens, rows packed by length — the same update, with
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
  /** samples per validation query at `temperature` in each evaluation, beside the greedy rollout (eval/sample_success; 0 = off) */
  evalSamples: number;
  /** seeds the query order, sampling and tool failures */
  seed: number;
}

/** defaults shared by every algorithm, sized for the lab's toy models */
const BASE: RlConfig = {
  algorithm: 'grpo', reward: 'sum', curriculumSwitches: [1 / 3, 2 / 3], steps: 40, queriesPerStep: 4, groupSize: 8,
  learningRate: 1e-4, lrWarmupSteps: 0, nullControl: false, miniBatches: 2, microBatchTokens: 2048, clipLow: 0.2, clipHigh: 0.2, dualClip: 3, klCoef: 0.001, lossAggregation: 'token-mean',
  temperature: 1, maxGradNorm: 1, toolFailureRate: 0, constrainPlan: false, maxTurns: 24,
  dynamicSampling: false, maxGenBatches: 3, overlongBuffer: 0,
  arpoInitial: 4, arpoAlpha: 0.5, arpoBeta: 0.2, arpoK: 10, arpoBranches: 1, arpoAdvantage: 'soft',
  evalEvery: 10, evalQueries: 40, evalToolQa: 32, seed: 1,
  evalSamples: 4,
};

/** what each algorithm changes */
const PER_ALGORITHM: Record<Algorithm, Partial<RlConfig>> = {
  grpo: { klCoef: 0.001, clipHigh: 0.2 },
  dapo: { klCoef: 0, clipHigh: 0.28, dynamicSampling: true, overlongBuffer: 64, lossAggregation: 'token-mean' },
  arpo: { klCoef: 0, clipHigh: 0.2 },
};

export function rlConfigFor(algorithm: Algorithm, overrides: Partial<RlConfig> = {}): RlConfig {
  const c: RlConfig = { ...BASE, ...PER_ALGORITHM[algorithm], ...overrides, algorithm };
  if (!overrides.arpoInitial) c.arpoInitial = Math.max(1, Math.floor(c.groupSize / 2)); // N = M/2, after the ARPO scripts
  validateRlConfig(c);
  return c;
}

/** The RL config of a lab experiment (the page and `cli run` share it). */
export function rlConfigFromLab(lab: LabConfig): RlConfig {
  const algorithmKnobs: Partial<RlConfig> = lab.algorithm === 'dapo'
    ? { clipLow: lab.clipLow, clipHigh: lab.clipHigh, maxGenBatches: lab.dapoMaxGenBatches, overlongBuffer: lab.overlongBuffer }
    : lab.algorithm === 'arpo'
      ? { clipLow: lab.clipLow, clipHigh: lab.clipLow, arpoAlpha: lab.arpoAlpha, arpoBeta: lab.arpoBeta, arpoK: lab.arpoK, arpoBranches: lab.arpoZ, arpoAdvantage: lab.arpoAdvantage }
      : { clipLow: lab.clipLow, clipHigh: lab.clipLow, klCoef: lab.klCoef };
  return rlConfigFor(lab.algorithm, {
    reward: lab.reward, curriculumSwitches: [lab.curriculumSwitch1, lab.curriculumSwitch2], steps: lab.steps,
    queriesPerStep: lab.queriesPerStep, groupSize: lab.groupSize, learningRate: lab.learningRate, lrWarmupSteps: lab.warmupSteps, temperature: lab.temperature,
    miniBatches: lab.miniBatches, microBatchTokens: lab.microBatchTokens, nullControl: lab.advantages === 'shuffled', toolFailureRate: lab.toolFailureRate,
    constrainPlan: lab.planDecoding === 'constrained', evalEvery: lab.evalEvery, evalQueries: lab.evalQueries, evalToolQa: lab.evalToolQa, seed: lab.seed, ...algorithmKnobs,
    evalSamples: lab.evalSamples,
  });
}

export function validateRlConfig(c: RlConfig): void {
  const nonNegInt = ['lrWarmupSteps'] as const;
  for (const k of nonNegInt) if (!Number.isInteger(c[k]) || c[k] < 0) throw new Error(`RL config: ${k} must be a non-negative integer, got ${c[k]}`);
  const posInt = ['steps', 'queriesPerStep', 'groupSize', 'miniBatches', 'maxTurns', 'maxGenBatches', 'arpoInitial', 'arpoK', 'arpoBranches', 'evalEvery'] as const;
  for (const k of posInt) if (!Number.isInteger(c[k]) || c[k] < 1) throw new Error(`RL config: ${k} must be a positive integer, got ${c[k]}`);
  for (const k of ['evalQueries', 'evalToolQa', 'overlongBuffer', 'microBatchTokens'] as const) if (!Number.isInteger(c[k]) || c[k] < 0) throw new Error(`RL config: ${k} must be a non-negative integer, got ${c[k]}`);
  if (!Number.isInteger(c.evalSamples) || c.evalSamples < 0) throw new Error(`RL config: evalSamples must be a non-negative integer, got ${c.evalSamples}`);
  for (const k of ['learningRate', 'temperature', 'maxGradNorm', 'dualClip'] as const) if (!(c[k] > 0)) throw new Error(`RL config: ${k} must be positive, got ${c[k]}`);
  for (const k of ['clipLow', 'clipHigh', 'klCoef', 'toolFailureRate'] as const) if (!(c[k] >= 0)) throw new Error(`RL config: ${k} must be ≥ 0, got ${c[k]}`);
  if (c.clipLow >= 1) throw new Error(`RL config: clipLow must be < 1, got ${c.clipLow}`);
  if (c.dualClip <= 1) throw new Error(`RL config: dualClip must be > 1, got ${c.dualClip}`);
  if (c.algorithm === 'arpo' && c.arpoInitial > c.groupSize) throw new Error(`RL config: ARPO starts ${c.arpoInitial} rollouts per query, more than the budget M = ${c.groupSize}`);
  const [a, b] = c.curriculumSwitches;
  if (!(a >= 0 && a <= b && b <= 1)) throw new Error(`RL config: curriculum switches must satisfy 0 ≤ a ≤ b ≤ 1, got [${a}, ${b}]`);
}
