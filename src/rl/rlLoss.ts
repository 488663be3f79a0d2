// The policy-gradient loss on the device: rlMath.ts's clipped surrogate, dual-clip and k3 KL, for every
// policy token of a mini-batch at once, aggregated with per-token weights (token-mean: 1/P;
// seq-mean-token-mean: 1/(sequences·tokens of the sequence)). The weights are those of the whole PPO
// mini-batch, so the loss of its micro-batches adds up to its loss (rlUpdate.ts accumulates them).
// The test checks it against rlMath.ts.
import * as tf from '@tensorflow/tfjs';
import type { Policy } from '../model/transformer.ts';
import { KL_CLAMP, LOG_RATIO_CLAMP, type ClipConfig, type LossAggregation } from './rlMath.ts';

/** one padded mini-batch of rollouts, flattened to its P loss positions */
export interface RlBatch {
  /** int32 [B·T], right-padded */
  tokens: Int32Array;
  B: number;
  T: number;
  /** flat positions b·(T−1) + t−1 of logProbs' [B, T−1] grid whose target token t the policy sampled, [P] */
  positions: Int32Array;
  /** sampling log-probs of those tokens (the rollout's; GRPO's π_old), [P] */
  oldLogProbs: Float32Array;
  /** per-token advantages, [P] */
  advantages: Float32Array;
  /** aggregation weights, [P]: they sum to 1 over the whole mini-batch, of which this may be one micro-batch */
  weights: Float32Array;
  /** positions the diagnostics (clip fraction, KL, entropy, …) are averaged over: the whole mini-batch's
   *  when this is one micro-batch of it, so the micro-batches' diagnostics add up to the mini-batch's (default P) */
  statCount?: number;
  /** constrained decoding: ids masked out of each position's distribution, [P] (empty lists when unconstrained) */
  bans?: number[][];
}

export interface LossConfig extends ClipConfig {
  klCoef: number;
  temperature: number;
}

/** per-position aggregation weights for `rowOf[p]` (the sequence of each position) */
export function aggregationWeights(rowOf: readonly number[], mode: LossAggregation): Float32Array {
  const P = rowOf.length;
  if (mode === 'token-mean') return new Float32Array(P).fill(P ? 1 / P : 0);
  const count = new Map<number, number>();
  for (const r of rowOf) count.set(r, (count.get(r) ?? 0) + 1);
  return Float32Array.from(rowOf, (r) => 1 / (count.size * count.get(r)!));
}

/** what rlLoss returns, by name: the loss to differentiate and its diagnostics, each a scalar */
export type LossStats = {
  /** Σ w·(pg + klCoef·kl): the micro-batch's share of the mini-batch's loss (what the gradient is of) */
  loss: tf.Scalar;
  /** Σ w·pg: the clipped surrogate alone */
  pgLoss: tf.Scalar;
  /** the mean k3 KL to the reference (0 without one) */
  kl: tf.Scalar;
  /** the share of positions where the clip bound (l2 > l1) */
  clipFrac: tf.Scalar;
  /** the share of positions where the dual clip bound (negative advantage, clipped loss above c·|A|) */
  dualClipFrac: tf.Scalar;
  /** the mean next-token entropy */
  entropy: tf.Scalar;
  /** the mean |ratio − 1| */
  ratioDev: tf.Scalar;
};

/** the names of LossStats, in one fixed order (the update reads each by name, never by position) */
export const LOSS_STATS = [
  'loss',
  'pgLoss',
  'kl',
  'clipFrac',
  'dualClipFrac',
  'entropy',
  'ratioDev',
] as const satisfies readonly (keyof LossStats)[];

/**
 * The differentiable loss of `batch` and its diagnostics (scalars): pg loss, clip fraction (the
 * clipped term bound), dual-clip fraction, mean k3 KL to the reference, mean entropy, mean |ratio − 1|.
 * `refLogProbs` [P] are constants (the frozen reference's), required when klCoef > 0. Use inside
 * tf.variableGrads / tf.tidy.
 */
export function rlLoss(policy: Policy, batch: RlBatch, c: LossConfig, refLogProbs: Float32Array | null): LossStats {
  const P = batch.positions.length;
  const tok = tf.tensor2d(batch.tokens, [batch.B, batch.T], 'int32');
  const { logProbs, entropy } = policy.logProbsAt(tok, batch.positions, undefined, {
    temperature: c.temperature,
    bans: batch.bans,
  }); // [P]
  const adv = tf.tensor1d(batch.advantages); // [P]
  const w = tf.tensor1d(batch.weights); // [P]
  const ratio = tf.exp(tf.clipByValue(logProbs.sub(tf.tensor1d(batch.oldLogProbs)), -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP)); // [P]
  const negAdv = adv.neg();
  const l1 = negAdv.mul(ratio);
  const l2 = negAdv.mul(tf.clipByValue(ratio, 1 - c.clipLow, 1 + c.clipHigh));
  const clippedLoss = tf.maximum(l1, l2);
  const l3 = negAdv.mul(c.dualClip);
  const negative = adv.less(0);
  const pg = tf.where(negative, tf.minimum(l3, clippedLoss), clippedLoss) as tf.Tensor1D; // [P]
  let tokenLoss: tf.Tensor1D = pg;
  let kl: tf.Tensor1D = tf.zeros([P]);
  if (c.klCoef > 0) {
    if (!refLogProbs) throw new Error('rlLoss: klCoef > 0 needs the reference log-probs');
    const d = tf.clipByValue(tf.tensor1d(refLogProbs).sub(logProbs), -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP);
    kl = tf.clipByValue(tf.exp(d).sub(d).sub(1), -KL_CLAMP, KL_CLAMP) as tf.Tensor1D;
    tokenLoss = pg.add(kl.mul(c.klCoef)) as tf.Tensor1D;
  }
  const n = batch.statCount ?? P;
  const mean = (x: tf.Tensor) => x.sum().div(n) as tf.Scalar; // a share of the mini-batch's mean
  return {
    loss: tokenLoss.mul(w).sum() as tf.Scalar,
    pgLoss: pg.mul(w).sum() as tf.Scalar,
    clipFrac: mean(l2.greater(l1).cast('float32')),
    dualClipFrac: mean(clippedLoss.greater(l3).logicalAnd(negative).cast('float32')),
    kl: mean(kl),
    entropy: mean(entropy),
    ratioDev: mean(ratio.sub(1).abs()),
  };
}
