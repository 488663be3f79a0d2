// Supervised fine-tuning on teacher trajectories: cross-entropy on the policy's own tokens only
// (lossMask = 1; query and observation tokens are context, never targets), AdamW with warm-up and
// cosine decay, global-norm clipping. The step is async (it reads back two scalars), so it can run in
// the training worker without blocking; every tensor it makes is freed before it returns.
import * as tf from '@tensorflow/tfjs';
import type { Policy } from '../model/transformer.ts';
import { AdamW, globalNormScale, lrSchedule } from './optimizer.ts';
import { compileAhead } from '../model/kernels/compileAhead.ts';
import { restoreCheckpoint, saveCheckpoint, type Checkpoint } from './checkpoint.ts';
import { Rng } from '../env/random.ts';
import { METRIC } from '../lab/metricNames.ts';

/** one training sequence, as the agent's encodeTrajectory produces it */
export interface SftExample {
  tokens: number[];
  /** 1 where the token is the policy's to predict (a loss target), 0 on query/observation tokens */
  lossMask: number[];
}

export interface SftConfig {
  /** sequences per optimizer step */
  batchSize: number;
  /** learning rate reached at the end of warm-up */
  peakLr: number;
  /** learning rate at the end of the cosine decay */
  minLr: number;
  /** steps of linear warm-up */
  warmupSteps: number;
  /** length of the schedule (the cosine reaches minLr here) */
  totalSteps: number;
  /** AdamW decoupled weight decay (matrices only, see optimizer.decays) */
  weightDecay: number;
  beta1: number;
  beta2: number;
  /** clip the global gradient norm to this */
  maxGradNorm: number;
  /** token id used to pad a batch to a common length (padding is never a target) */
  padId: number;
  /** pad batch lengths up to a multiple of this, so the webgpu backend sees few distinct shapes */
  padMultiple: number;
  /** seeds the data order (a pure function of seed and step, so a resumed run sees the same batches) */
  seed: number;
  /** batch similar lengths together to cut padding: each run of this many batches' worth of the
   *  epoch's permutation is sorted by length before it is cut into batches (whose order is then
   *  shuffled). 0 or 1: plain random batches */
  lengthGroup: number;
}

export const defaultSftConfig: SftConfig = {
  batchSize: 16,
  peakLr: 3e-3,
  minLr: 3e-4,
  warmupSteps: 20,
  totalSteps: 1000,
  weightDecay: 0.1,
  beta1: 0.9,
  beta2: 0.95,
  maxGradNorm: 1.0,
  padId: 0,
  padMultiple: 16,
  seed: 0,
  lengthGroup: 8,
};

export type Metrics = Record<string, number>;

export class SftTrainer {
  readonly policy: Policy;
  readonly optimizer: AdamW;
  readonly config: SftConfig;
  /** the run's Rng, checkpointed (SFT itself draws nothing from it; RL and evaluation do) */
  rng: Rng;
  /** optimizer steps taken */
  step = 0;
  private readonly examples: readonly SftExample[];
  private readonly paramByVariable = new Map<string, string>();
  private order: { epoch: number; perm: number[] } = { epoch: -1, perm: [] };
  /** batch lengths whose shaders compileAhead has compiled (webgpu) */
  private readonly compiledShapes = new Set<number>();

  /** trains `policy` in place (the caller owns and disposes the policy) */
  constructor(policy: Policy, examples: readonly SftExample[], config: Partial<SftConfig> = {}, optimizer?: AdamW) {
    this.config = { ...defaultSftConfig, ...config };
    this.policy = policy;
    this.examples = examples;
    validateExamples(examples, policy.config.vocabSize, policy.config.contextLength, this.config.padId);
    if (!Number.isInteger(this.config.batchSize) || this.config.batchSize < 1)
      throw new Error(`SFT: batchSize must be a positive integer, got ${this.config.batchSize}`);
    if (!Number.isInteger(this.config.lengthGroup) || this.config.lengthGroup < 0)
      throw new Error(`SFT: lengthGroup must be a non-negative integer, got ${this.config.lengthGroup}`);
    const { beta1, beta2, weightDecay } = this.config;
    this.optimizer = optimizer ?? new AdamW(policy.params, { beta1, beta2, weightDecay });
    this.rng = new Rng(this.config.seed);
    for (const [name, v] of policy.params) this.paramByVariable.set(v.name, name);
  }

  /** one optimizer step; returns its metrics. Throws (leaving the weights untouched) on a NaN/Inf loss.
   *  `batch` overrides the trainer's own data order (pretraining streams its batches from ever-new worlds). */
  async sftStep(batch: readonly SftExample[] = this.nextBatch()): Promise<Metrics> {
    const t0 = performance.now();
    const { tokens, T, targets, realTokens } = this.pad(batch);
    const lossTokens = targets.length;
    const lr = lrSchedule(this.step, this.config);
    if (!this.compiledShapes.has(T)) { // webgpu: every shader of a step at this length compiled at once
      this.compiledShapes.add(T);
      await compileAhead(() => {
        const out = this.lossAndGrads(tokens, batch.length, T, targets);
        this.optimizer.buildUpdate(out.grads, lr, out.scale);
        out.entropy.dispose(); // kept through variableGrads: tidy alone would not free it
      });
    }
    const out = tf.tidy(() => this.lossAndGrads(tokens, batch.length, T, targets));
    try {
      const [loss, norm, entropy] = await Promise.all([out.loss.data(), out.norm.data(), out.entropy.data()]);
      if (!Number.isFinite(loss[0]) || !Number.isFinite(norm[0])) {
        throw new Error(
          `SFT step ${this.step}: loss ${loss[0]}, gradient norm ${norm[0]} — stopping before the update (weights unchanged); lower peakLr or check the data`,
        );
      }
      this.optimizer.apply(out.grads, lr, out.scale);
      this.step++;
      const ms = performance.now() - t0;
      return {
        [METRIC.lossesSft]: loss[0],
        [METRIC.chartsLr]: lr,
        [METRIC.chartsGradNorm]: norm[0],
        [METRIC.chartsEntropy]: entropy[0],
        [METRIC.chartsTokensPerS]: (realTokens * 1000) / ms,
        [METRIC.chartsLossTokens]: lossTokens,
        [METRIC.chartsPaddingFraction]: 1 - realTokens / tokens.length,
        [METRIC.chartsStepTimeMs]: ms,
        [METRIC.chartsEpoch]: (this.step * this.config.batchSize) / this.examples.length,
        [METRIC.chartsStep]: this.step,
      };
    } finally {
      tf.dispose([out.loss, out.norm, out.entropy, out.scale, ...Object.values(out.grads)]);
    }
  }

  /** the step's loss, entropy, gradients by parameter name and clip scale. Use inside tf.tidy. */
  private lossAndGrads(tokens: Int32Array, B: number, T: number, targets: Int32Array | number[]) {
    const vars = [...this.policy.params.values()];
    const tok = tf.tensor2d(tokens, [B, T], 'int32'); // [B, T]
    const count = Math.max(1, targets.length);
    let entropy: tf.Scalar | null = null;
    const { value, grads } = tf.variableGrads(() => {
      if (targets.length === 0) { // nothing to learn from: a zero loss (and zero gradients) through the weights
        entropy = tf.keep(tf.scalar(0));
        return vars.map((v) => v.sum().mul(0)).reduce((a, b) => a.add(b)) as tf.Scalar;
      }
      // the head and its V-wide softmax only at the loss targets (~40 % of the positions)
      const { logProbs, entropy: ent } = this.policy.logProbsAt(tok, targets);
      entropy = tf.keep(ent.sum().div(count) as tf.Scalar);
      return logProbs.sum().neg().div(count) as tf.Scalar; // token-mean cross-entropy
    }, vars);
    const byName: Record<string, tf.Tensor> = {};
    for (const [vname, g] of Object.entries(grads)) byName[this.paramByVariable.get(vname)!] = g;
    const { norm, scale } = globalNormScale(byName, this.config.maxGradNorm); // the clip, applied inside AdamW
    return { loss: value, norm, entropy: entropy! as tf.Scalar, grads: byName, scale };
  }

  /** mean cross-entropy per loss token over `examples` (e.g. the validation split), no update */
  async evaluateLoss(examples: readonly SftExample[]): Promise<number> {
    validateExamples(examples, this.policy.config.vocabSize, this.policy.config.contextLength, this.config.padId);
    let total = 0;
    let count = 0;
    for (let i = 0; i < examples.length; i += this.config.batchSize) {
      const batch = examples.slice(i, i + this.config.batchSize);
      const { tokens, T, targets } = this.pad(batch);
      if (targets.length === 0) continue;
      const sum = tf.tidy(() =>
        this.policy
          .logProbsAt(tf.tensor2d(tokens, [batch.length, T], 'int32'), targets)
          .logProbs.sum()
          .neg(),
      );
      total += (await sum.data())[0];
      sum.dispose();
      count += targets.length;
    }
    return total / Math.max(1, count);
  }

  async checkpoint(): Promise<Checkpoint> {
    return saveCheckpoint({ policy: this.policy, optimizer: this.optimizer, rng: this.rng, step: this.step });
  }

  /** a trainer continuing from `ckpt` (same examples and config as the run that saved it) */
  static restore(ckpt: Checkpoint, examples: readonly SftExample[], config: Partial<SftConfig> = {}): SftTrainer {
    const full = { ...defaultSftConfig, ...config };
    const state = restoreCheckpoint(ckpt, { beta1: full.beta1, beta2: full.beta2, weightDecay: full.weightDecay });
    const trainer = new SftTrainer(state.policy, examples, full, state.optimizer);
    trainer.rng = state.rng;
    trainer.step = state.step;
    return trainer;
  }

  /** frees the optimizer state (the policy belongs to the caller) */
  dispose(): void {
    this.optimizer.dispose();
  }

  /** the batch of this step: consecutive slices of the per-epoch orders (sftEpochOrder) */
  private nextBatch(): SftExample[] {
    const N = this.examples.length;
    const out: SftExample[] = [];
    for (let k = 0; k < this.config.batchSize; k++) {
      const at = this.step * this.config.batchSize + k;
      const epoch = Math.floor(at / N);
      if (epoch !== this.order.epoch) {
        const lengths = this.examples.map((e) => e.tokens.length);
        this.order = {
          epoch,
          perm: sftEpochOrder(lengths, this.config.batchSize, this.config.lengthGroup, this.config.seed, epoch),
        };
      }
      out.push(this.examples[this.order.perm[at % N]]);
    }
    return out;
  }

  /** right-pad to a common length T; targets are the flat positions b·(T-1) + t-1 of logProbs' [B, T-1]
   *  grid whose next token x_t is a loss target (lossMask[t] = 1) */
  private pad(batch: readonly SftExample[]) {
    const longest = Math.max(2, ...batch.map((e) => e.tokens.length));
    const T = Math.min(
      this.policy.config.contextLength,
      Math.ceil(longest / this.config.padMultiple) * this.config.padMultiple,
    );
    const tokens = new Int32Array(batch.length * T).fill(this.config.padId);
    const targets: number[] = [];
    let realTokens = 0;
    batch.forEach((e, b) => {
      tokens.set(e.tokens, b * T);
      realTokens += e.tokens.length;
      for (let t = 1; t < e.tokens.length; t++) if (e.lossMask[t] === 1) targets.push(b * (T - 1) + t - 1);
    });
    return { tokens, T, targets, realTokens };
  }
}

/**
 * The example order of `epoch` (indices into the examples, whose token counts are `lengths`), a pure
 * function of its arguments: a permutation seeded by (seed, epoch), regrouped so each batch holds
 * similar lengths (padding to the longest of a random batch wastes compute). Each run of `lengthGroup`
 * batches' worth is sorted by length and cut into batches, and the batches are shuffled. Batches sit on
 * the global step grid (step·batchSize), so the first and last few slots of an epoch, which share a
 * batch with the neighbouring epoch, keep their random order. lengthGroup ≤ 1: the plain permutation.
 */
export function sftEpochOrder(
  lengths: readonly number[],
  batchSize: number,
  lengthGroup: number,
  seed: number,
  epoch: number,
): number[] {
  const N = lengths.length;
  const rng = new Rng(seed).fork(epoch + 1);
  const perm = rng.shuffle(Array.from({ length: N }, (_, i) => i));
  if (lengthGroup <= 1) return perm;
  const head = Math.min(N, (batchSize - ((epoch * N) % batchSize)) % batchSize); // slots that finish the previous epoch's last batch
  const end = head + Math.floor((N - head) / batchSize) * batchSize; // whole batches in [head, end)
  const batches: number[][] = [];
  for (let g = head; g < end; g += batchSize * lengthGroup) {
    const group = perm.slice(g, Math.min(end, g + batchSize * lengthGroup));
    group.sort((a, b) => lengths[a] - lengths[b]); // stable: ties keep the permutation's order
    for (let i = 0; i < group.length; i += batchSize) batches.push(group.slice(i, i + batchSize));
  }
  return [...perm.slice(0, head), ...rng.shuffle(batches).flat(), ...perm.slice(end)];
}

function validateExamples(
  examples: readonly SftExample[],
  vocabSize: number,
  contextLength: number,
  padId: number,
): void {
  if (examples.length === 0) throw new Error('SFT: no examples');
  if (!Number.isInteger(padId) || padId < 0 || padId >= vocabSize)
    throw new Error(`SFT: padId ${padId} outside the vocabulary`);
  examples.forEach((e, i) => {
    if (!Array.isArray(e.tokens) || !Array.isArray(e.lossMask) || e.tokens.length !== e.lossMask.length) {
      throw new Error(`SFT: example ${i} needs tokens and lossMask of equal length`);
    }
    if (e.tokens.length > contextLength)
      throw new Error(`SFT: example ${i} has ${e.tokens.length} tokens, more than the context ${contextLength}`);
    for (const t of e.tokens)
      if (!Number.isInteger(t) || t < 0 || t >= vocabSize)
        throw new Error(`SFT: example ${i} has token id ${t} outside [0, ${vocabSize})`);
  });
}
