// The PPO update of S seeds in one program: rlUpdate.ts's update for every seed at once, on the seed
// stack (model/seedStack.ts), equal seed by seed to the seed's own ppoUpdate. Read top to bottom:
//
//   per seed: its plan (rlUpdate.ts planUpdate: mini-batches, weights), as its own run plans
//   per mini-batch k: its rows of every seed cut into rounds together (jointRounds) ─ per round: each seed's
//     rows laid into one [S, B, T] batch (padded to the longest; a seed with no rows left gets an empty one)
//     ─ one forward and backward for all seeds ─ gradients summed ─ one AdamW step of the seeds whose own
//     run steps here
//
// The loss of the stack is the sum of the seeds' losses, so seed s's gradient is its own run's. The loss is
// rlLoss.ts's, position by position; a seed's positions are gathered into [S, P] (P: the most of any seed,
// the rest padding of weight 0), so the head and log-softmax run on the scored positions alone, as
// Policy.logProbsAt's do.
import * as tf from '@tensorflow/tfjs';
import { PAD } from '../agent/vocab.ts';
import { trainingBytes } from '../model/config.ts';
import { logSoftmaxLast, selectRows } from '../model/ops.ts';
import { banBias } from '../model/sampling.ts';
import type { SeedStackedPolicy } from '../model/seedStack.ts';
import { seedMatMul } from '../model/seedMatMul.ts';
import { KL_CLAMP, LOG_RATIO_CLAMP } from './rlMath.ts';
import { aggregationWeights, type RlBatch } from './rlLoss.ts';
import type { RlConfig } from './rlConfig.ts';
import {
  batchOf,
  checkFinite,
  microBatchBudget,
  planUpdate,
  WASM_TRAINING_HEAP,
  type UpdatePlan,
  type UpdateRow,
} from './rlUpdate.ts';
import { perSeedNormScale, type SeedStackedAdamW } from './seedStackOptimizer.ts';
import { METRIC } from '../lab/metricNames.ts';

export interface SeedStackUpdateContext {
  stack: SeedStackedPolicy;
  /** the frozen references, stacked (needed when klCoef > 0) */
  reference: SeedStackedPolicy | null;
  optimizer: SeedStackedAdamW;
  config: RlConfig;
  /** the RL step (every seed's: they step together) */
  step: number;
}

/** the diagnostics ppoUpdate reports, by rlLoss's names */
const STATS = ['loss', 'pgLoss', 'kl', 'clipFrac', 'dualClipFrac', 'entropy', 'ratioDev'] as const;
type Stat = (typeof STATS)[number];

/** S seeds' micro-batches laid into one: tokens [S, B, T]; per seed its P positions, padded to the most */
interface StackedBatch {
  S: number;
  B: number;
  T: number;
  P: number;
  tokens: Int32Array; // [S·B·T]
  /** rows of the hidden states [S·B·T, C] scored, [S·P], distinct (padding takes unused rows) */
  rows: Int32Array;
  targets: Int32Array; // [S·P]
  oldLogProbs: Float32Array; // [S·P]
  advantages: Float32Array; // [S·P]
  /** aggregation weights (0 on padding), [S·P] */
  weights: Float32Array;
  /** 1 / the seed's statistics count on real positions, 0 on padding, [S·P] */
  statWeights: Float32Array;
  bans: number[][] | undefined; // [S·P]
}

/**
 * The PPO mini-batch updates of one step for every seed: rows[s] and tokenAdvantages[s] are seed s's, as its
 * own trainer passes them to ppoUpdate. Returns each seed's update metrics, as ppoUpdate returns them. Throws
 * before any weight changes on a batch that would not fit in memory or a non-finite input, and before a
 * mini-batch's step on a non-finite loss of any seed.
 */
export async function seedStackUpdate(ctx: SeedStackUpdateContext, rows: readonly (readonly UpdateRow[])[],
  tokenAdvantages: readonly (Map<UpdateRow, number[]> | null)[]): Promise<Record<string, number>[]> {
  const c = ctx.config;
  const S = ctx.stack.seeds;
  if (rows.length !== S || tokenAdvantages.length !== S) {
    throw new Error(`seedStackUpdate: rows of ${rows.length} seeds for a stack of ${S}`);
  }
  // ---- each seed's plan, as its own run makes it
  const plans = rows.map((r, s) => planUpdate(c, ctx.step, ctx.stack.config.contextLength, r, tokenAdvantages[s]));
  plans.forEach((p, s) => checkFinite(ctx.step, p.trainable, p.targets, tokenAdvantages[s]));
  const miniBatches = Math.max(0, ...plans.map((p) => p.plan.length));
  // per mini-batch, per seed: its rows in rounds cut together (see jointRounds)
  const rounds = Array.from({ length: miniBatches }, (_, k) =>
    jointRounds(plans, k, microBatchBudget(c.microBatchTokens)),
  );
  checkMemory(ctx, plans, rounds);
  const out = plans.map(() => ({ [METRIC.lossesPg]: 0, [METRIC.lossesKl]: 0, [METRIC.lossesClipFrac]: 0,
    [METRIC.lossesDualClipFrac]: 0,
    [METRIC.lossesEntropy]: 0, [METRIC.lossesRatioDev]: 0, [METRIC.chartsGradNorm]: 0 }));
  const done = plans.map(() => 0);
  const vars = [...ctx.stack.params.values()];
  const nameOf = new Map([...ctx.stack.params].map(([name, v]) => [v.name, name]));

  for (let k = 0; k < miniBatches; k++) {
    const stepping = plans.map((p) => k < p.plan.length);
    // per seed: its mini-batch's aggregation weights, cut per micro-batch into RlBatches (rlUpdate.ts's)
    const seedBatches = plans.map((p, s) =>
      (stepping[s] ? microBatchesOf(p, k, rounds[k][s], tokenAdvantages[s], c) : []));
    const roundCount = Math.max(...seedBatches.map((b) => b.length));
    let grads: Record<string, tf.Tensor> | null = null;
    const parts: tf.Tensor1D[][] = []; // per micro-batch round: each statistic, [S]
    try {
      for (let j = 0; j < roundCount; j++) {
        const batch = stackBatches(seedBatches.map((b) => b[j] ?? null));
        const ref = c.klCoef > 0 ? referenceLogProbs(ctx, batch) : null;
        const previous: Record<string, tf.Tensor> | null = grads;
        const res = tf.tidy(() => {
          let stats: tf.Tensor1D[] = [];
          const { grads: g } = tf.variableGrads(() => {
            const l = stackedLoss(ctx.stack, batch, c, ref);
            stats = STATS.map((name) => tf.keep(l[name]));
            return l.loss.sum() as tf.Scalar; // the seeds' losses added: each seed's gradient is its own
          }, vars);
          const sum: Record<string, tf.Tensor> = {};
          for (const [vname, gi] of Object.entries(g)) {
            const name = nameOf.get(vname)!;
            sum[name] = previous ? previous[name].add(gi) : gi;
          }
          return { sum, stats };
        });
        ref?.dispose();
        if (previous) tf.dispose(Object.values(previous));
        grads = res.sum;
        parts.push(res.stats);
      }
      const g = grads!;
      // each statistic summed over the seed's micro-batches, in their order (ppoUpdate's sums)
      const readRound = (p: tf.Tensor1D[]) => Promise.all(p.map(async (t) => (await t.data()) as Float32Array));
      const read = await Promise.all(parts.map(readRound));
      const stat = (s: number, name: Stat) =>
        read.slice(0, seedBatches[s].length).reduce((a, r) => a + r[STATS.indexOf(name)][s], 0);
      const normT = tf.tidy(() => perSeedNormScale(g, S, c.maxGradNorm).norms);
      const norms = (await normT.data()) as Float32Array;
      normT.dispose();
      for (let s = 0; s < S; s++) {
        if (!stepping[s]) continue;
        const [loss, gradNorm] = [stat(s, 'loss'), norms[s]];
        if (!Number.isFinite(loss) || !Number.isFinite(gradNorm)) {
          throw new Error(`RL step ${ctx.step}, seed ${s + 1} of ${S}: loss ${loss}, gradient norm ${gradNorm} — ` +
            'stopping before the update (weights unchanged); lower the learning rate');
        }
      }
      ctx.optimizer.apply(g, plans[0].lr, c.maxGradNorm, stepping).dispose();
      for (let s = 0; s < S; s++) {
        if (!stepping[s]) continue;
        const o = out[s];
        o[METRIC.lossesPg] += stat(s, 'pgLoss');
        o[METRIC.lossesKl] += stat(s, 'kl');
        o[METRIC.lossesClipFrac] += stat(s, 'clipFrac');
        o[METRIC.lossesDualClipFrac] += stat(s, 'dualClipFrac');
        o[METRIC.lossesEntropy] += stat(s, 'entropy');
        o[METRIC.lossesRatioDev] += stat(s, 'ratioDev');
        o[METRIC.chartsGradNorm] += norms[s];
        done[s]++;
      }
    } finally {
      tf.dispose([...parts.flat(), ...Object.values((grads ?? {}) as Record<string, tf.Tensor>)]);
    }
  }
  return out.map((o, s) => {
    for (const key of Object.keys(o) as (keyof typeof o)[]) o[key] /= Math.max(1, done[s]);
    return { ...o, ...plans[s].diagnostics };
  });
}

/**
 * Mini-batch k's rows of every seed cut into rounds together, per seed its list of micro-batches (indices into
 * its trainable rows): a round's length T is the longest row any seed has left, and each seed takes its longest
 * rows left while they fit the token budget at T (a row past the budget alone; budget 0: one round). Pairing
 * each seed's own micro-batches instead would pad every round to the largest seed's rows and length. The
 * gradient is the same sum either way; only the float order changes, as ppoUpdate's micro-batches change it.
 */
function jointRounds(plans: readonly UpdatePlan[], k: number, budget: number): number[][][] {
  const left = plans.map((p) => [...(p.plan[k] ?? [])].sort((a, b) => p.padded[b] - p.padded[a] || a - b));
  const out = plans.map(() => [] as number[][]);
  while (left.some((l) => l.length > 0)) {
    const T = Math.max(...left.map((l, s) => (l.length ? plans[s].padded[l[0]] : 0)));
    const B = budget > 0 ? Math.max(1, Math.floor(budget / T)) : Infinity;
    left.forEach((l, s) => { if (l.length) out[s].push(l.splice(0, B)); });
  }
  return out;
}

/** seed plan p's mini-batch k cut into `micro` (lists of its trainable rows) as RlBatches, each with the whole
 *  mini-batch's weights (ppoUpdate's) */
function microBatchesOf(p: UpdatePlan, k: number, micro: readonly number[][],
  tokenAdvantages: Map<UpdateRow, number[]> | null, c: RlConfig): RlBatch[] {
  const members = p.plan[k];
  const rowOf = members.flatMap((i, b) => p.targets[i].map(() => b));
  const weights = aggregationWeights(rowOf, c.lossAggregation);
  const offset = new Map<number, number>();
  let at = 0;
  for (const i of members) { offset.set(i, at); at += p.targets[i].length; }
  return micro.map((m) => {
    const w = m.flatMap((i) => Array.from(weights.subarray(offset.get(i)!, offset.get(i)! + p.targets[i].length)));
    return batchOf(m.map((i) => p.trainable[i]), m.map((i) => p.targets[i]), tokenAdvantages, p.padded[m[0]],
      Float32Array.from(w), rowOf.length);
  });
}

/** the seeds' micro-batches (null: the seed has none this round) in one [S, B, T] batch */
function stackBatches(batches: readonly (RlBatch | null)[]): StackedBatch {
  const S = batches.length;
  const B = Math.max(1, ...batches.map((b) => b?.B ?? 0));
  const T = Math.max(2, ...batches.map((b) => b?.T ?? 0));
  const P = Math.max(1, ...batches.map((b) => b?.positions.length ?? 0));
  const tokens = new Int32Array(S * B * T).fill(PAD);
  const rows = new Int32Array(S * P);
  const targets = new Int32Array(S * P);
  const oldLogProbs = new Float32Array(S * P);
  const advantages = new Float32Array(S * P);
  const weights = new Float32Array(S * P);
  const statWeights = new Float32Array(S * P);
  const bans: number[][] = Array.from({ length: S * P }, () => []);
  batches.forEach((batch, s) => {
    const used = new Uint8Array(B * T);
    const n = batch ? batch.positions.length : 0;
    if (batch) {
      for (let b = 0; b < batch.B; b++) {
        tokens.set(batch.tokens.subarray(b * batch.T, (b + 1) * batch.T), (s * B + b) * T);
      }
      batch.positions.forEach((pos, i) => {
        const b = Math.floor(pos / (batch.T - 1));
        const t = pos % (batch.T - 1);
        const row = b * T + t; // its hidden state's row in seed s's [B·T]
        used[row] = 1;
        rows[s * P + i] = s * B * T + row;
        targets[s * P + i] = tokens[s * B * T + row + 1];
        oldLogProbs[s * P + i] = batch.oldLogProbs[i];
        advantages[s * P + i] = batch.advantages[i];
        weights[s * P + i] = batch.weights[i];
        statWeights[s * P + i] = 1 / (batch.statCount ?? n);
        if (batch.bans) bans[s * P + i] = batch.bans[i];
      });
    }
    // padding: rows of seed s no position uses (selectRows' gradient wants distinct rows), weight 0
    let free = 0;
    for (let i = n; i < P; i++) {
      while (used[free]) free++;
      used[free] = 1;
      rows[s * P + i] = s * B * T + free;
      targets[s * P + i] = PAD;
    }
  });
  return { S, B, T, P, tokens, rows, targets, oldLogProbs, advantages, weights, statWeights,
    bans: bans.some((x) => x.length > 0) ? bans : undefined };
}

/** log p and entropy [S, P] of the batch's scored positions under `stack` (Policy.logProbsAt's math).
 *  Use inside tf.tidy. */
function scoredLogProbs(stack: SeedStackedPolicy, batch: StackedBatch, temperature: number):
  { logProbs: tf.Tensor2D; entropy: tf.Tensor2D } {
  const { S, B, T, P } = batch;
  const { dModel: C, vocabSize: V } = stack.config;
  const hidden = stack.hidden(tf.tensor3d(batch.tokens, [S, B, T], 'int32')).reshape([S * B * T, C]) as tf.Tensor2D;
  const h = selectRows(hidden, tf.tensor1d(batch.rows, 'int32')).reshape([S, P, C]) as tf.Tensor3D; // [S, P, C]
  // [S, P, C]·[S, V, C]ᵀ: each seed's tied head
  let logits = seedMatMul(h, stack.params.get('wte') as tf.Tensor3D, true);
  const bias = banBias(batch.bans, S * P, V);
  if (bias) logits = logits.add(tf.tensor3d(bias, [S, P, V])); // banned ids: probability 0, as sampled
  if (temperature !== 1) logits = logits.div(temperature);
  const logp = logSoftmaxLast(logits); // [S, P, V]
  const picked = logp.mul(tf.oneHot(tf.tensor2d(batch.targets, [S, P], 'int32'), V)).sum(-1) as tf.Tensor2D; // [S, P]
  const entropy = tf.exp(logp).mul(logp).sum(-1).neg() as tf.Tensor2D; // [S, P]
  return { logProbs: picked, entropy };
}

/** the frozen references' log-probs at the batch's positions, [S, P] (constants of the KL term) */
function referenceLogProbs(ctx: SeedStackUpdateContext, batch: StackedBatch): tf.Tensor2D {
  return tf.tidy(() => scoredLogProbs(ctx.reference!, batch, ctx.config.temperature).logProbs);
}

/** rlLoss.ts's loss and diagnostics, per seed: each [S] (the loss seed s's share of its mini-batch's).
 *  Use inside tf.variableGrads. */
function stackedLoss(stack: SeedStackedPolicy, batch: StackedBatch, c: RlConfig, ref: tf.Tensor2D | null):
  Record<Stat, tf.Tensor1D> {
  const { S, P } = batch;
  const { logProbs, entropy } = scoredLogProbs(stack, batch, c.temperature); // [S, P]
  const grid = (x: Float32Array) => tf.tensor2d(x, [S, P]);
  const adv = grid(batch.advantages);
  const w = grid(batch.weights);
  const n = grid(batch.statWeights); // a share of the mini-batch's mean; 0 on padding
  const ratio = tf.exp(tf.clipByValue(logProbs.sub(grid(batch.oldLogProbs)), -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP));
  const negAdv = adv.neg();
  const l1 = negAdv.mul(ratio);
  const l2 = negAdv.mul(tf.clipByValue(ratio, 1 - c.clipLow, 1 + c.clipHigh));
  const clippedLoss = tf.maximum(l1, l2);
  const l3 = negAdv.mul(c.dualClip);
  const negative = adv.less(0);
  const pg = tf.where(negative, tf.minimum(l3, clippedLoss), clippedLoss); // [S, P]
  let tokenLoss: tf.Tensor = pg;
  let kl: tf.Tensor = tf.zeros([S, P]);
  if (c.klCoef > 0) {
    if (!ref) throw new Error('seedStackUpdate: klCoef > 0 needs the reference log-probs');
    const d = tf.clipByValue(ref.sub(logProbs), -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP);
    kl = tf.clipByValue(tf.exp(d).sub(d).sub(1), -KL_CLAMP, KL_CLAMP);
    tokenLoss = pg.add(kl.mul(c.klCoef));
  }
  const mean = (x: tf.Tensor) => x.mul(n).sum(1) as tf.Tensor1D;
  return {
    loss: tokenLoss.mul(w).sum(1) as tf.Tensor1D,
    pgLoss: pg.mul(w).sum(1) as tf.Tensor1D,
    clipFrac: mean(l2.greater(l1).cast('float32')),
    dualClipFrac: mean(clippedLoss.greater(l3).logicalAnd(negative).cast('float32')),
    kl: mean(kl),
    entropy: mean(entropy),
    ratioDev: mean(ratio.sub(1).abs()),
  };
}

/** on wasm: fails, naming what to lower, when a round's stacked micro-batch (S seeds × its rows × T) would not fit */
function checkMemory(ctx: SeedStackUpdateContext, plans: readonly UpdatePlan[], rounds: readonly number[][][][]): void {
  if (tf.getBackend() !== 'wasm') return;
  const room = WASM_TRAINING_HEAP - tf.memory().numBytes;
  const S = ctx.stack.seeds;
  let worst = 0;
  for (const perSeed of rounds) {
    for (let j = 0; perSeed.some((m) => j < m.length); j++) {
      const at = perSeed.map((m) => m[j] ?? []);
      const B = Math.max(...at.map((m) => m.length));
      const T = Math.max(...at.flatMap((m, s) => m.map((i) => plans[s].padded[i])));
      worst = Math.max(worst, trainingBytes(ctx.stack.config, S * B * T, T));
    }
  }
  if (worst <= room) return;
  const MB = (x: number) => Math.round(x / 2 ** 20);
  throw new Error(`RL step ${ctx.step}: out of memory — a stacked micro-batch of ${S} seeds needs ~${MB(worst)} MB ` +
    `for the backward, the wasm heap has ~${MB(room)} MB left. Stopped before the update (weights unchanged): ` +
    'lower the micro-batch token budget ' +
    `(microBatchTokens, now ${ctx.config.microBatchTokens}) or stack fewer seeds.`);
}
