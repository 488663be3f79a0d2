// The PPO update of one RL step, read top to bottom:
//
//   rows ─ mini-batches (whole groups in order; miniBatchPlan) ─ per mini-batch: aggregation weights over
//     the whole mini-batch ─ micro-batches packed by length under a token budget (microBatches) ─ per
//     micro-batch: [reference log-probs when klCoef > 0] ─ loss and gradient, summed into the mini-batch's
//     ─ one clipped AdamW step per mini-batch
//
// The micro-batches change the float order only: each one's loss carries the weights of the whole
// mini-batch (token-mean 1/P, seq-mean 1/(sequences·tokens)), so their gradients add up to the unsplit
// gradient, and the diagnostics are sums over the mini-batch's positions. Peak memory follows the token
// budget, not the group size; every planned micro-batch is checked against the wasm heap before the first
// weight moves (a wasm out-of-memory is an `Aborted()` that kills the module, not an error one can catch).
import * as tf from '@tensorflow/tfjs';
import { trainingRow, type Episode } from '../agent/episode.ts';
import { PAD } from '../agent/vocab.ts';
import { type Policy } from '../model/transformer.ts';
import { trainingBytes } from '../model/config.ts';
import { globalNormScale, type AdamW } from './optimizer.ts';
import { microBatches, miniBatchPlan } from './rlMath.ts';
import { aggregationWeights, LOSS_STATS, rlLoss, type LossStats, type RlBatch } from './rlLoss.ts';
import type { RlConfig } from './rlConfig.ts';
import { METRIC } from '../lab/metricNames.ts';

/** one rollout to learn from (a ScoredEpisode of the trainer is one) */
export interface UpdateRow {
  episode: Pick<Episode, 'tokens' | 'lossMask' | 'logProbs' | 'bans'>;
  group: number;
  advantage: number;
}

export interface UpdateContext {
  policy: Policy;
  /** the frozen reference (needed when klCoef > 0) */
  reference: Policy | null;
  optimizer: AdamW;
  config: RlConfig;
  /** the RL step (warm-up and error messages) */
  step: number;
  /** awaited before each micro-batch (k of n over the whole update): RolloutOptions.pause's role */
  pause?: (microBatch: number, microBatches: number) => Promise<void> | void;
  /** awaited before mini-batch k's optimizer step moves the weights (a caller that may stop mid-update keeps the
   * weights before it) */
  beforeApply?: (miniBatch: number, miniBatches: number) => Promise<void> | void;
}

const PAD_MULTIPLE = 16;
/**
 * On webgpu a micro-batch takes this many times the token budget. The budget was sized for CPUs (the wasm heap,
 * cache-sized matMuls); on a GPU a micro-batch's cost is its ~690 dispatches (at m, each ~150 µs of host work on
 * an H200) more than its arithmetic, so fewer, larger ones pay: at m's default step (2 mini-batches of 16 rollouts,
 * each under 16,384 padded tokens) every mini-batch is one micro-batch, 7 on a CPU. The update is the same
 * (gradients summed, test/rl/rlUpdate.test.ts); memory at 16,384 tokens of 576 is ~150 MB a [B, H, T, T]
 * attention tensor.
 */
export const WEBGPU_MICRO_BATCH_SCALE = 8;

/** the micro-batch token budget on `backend` (0: whole mini-batches everywhere) */
export function microBatchBudget(tokens: number, backend = tf.getBackend()): number {
  return backend === 'webgpu' && tokens > 0 ? tokens * WEBGPU_MICRO_BATCH_SCALE : tokens;
}
/** the wasm heap a micro-batch may plan to fill: its 4 GiB less 256 MiB (allocator slack, XNNPACK's buffers) */
export const WASM_TRAINING_HEAP = 4 * 2 ** 30 - 256 * 2 ** 20;

/**
 * The PPO mini-batch updates of one step over `rows`; ARPO hard attribution passes per-token advantages
 * (`tokenAdvantages`, indexed like the episode's tokens). Returns the step's update metrics (means over the
 * mini-batches that stepped). Throws before any weight changes when a planned micro-batch would not fit
 * in memory, and before the failing mini-batch's step on a non-finite loss.
 */
export async function ppoUpdate(
  ctx: UpdateContext,
  rows: readonly UpdateRow[],
  tokenAdvantages: Map<UpdateRow, number[]> | null,
): Promise<Record<string, number>> {
  const c = ctx.config;
  const out = {
    [METRIC.lossesPg]: 0,
    [METRIC.lossesKl]: 0,
    [METRIC.lossesClipFrac]: 0,
    [METRIC.lossesDualClipFrac]: 0,
    [METRIC.lossesEntropy]: 0,
    [METRIC.lossesRatioDev]: 0,
    [METRIC.chartsGradNorm]: 0,
  };
  const { lr, trainable, targets, plan, padded, micro, diagnostics } = planUpdate(
    c,
    ctx.step,
    ctx.policy.config.contextLength,
    rows,
    tokenAdvantages,
  );
  checkMemory(
    ctx,
    micro.flat().map((m) => ({ rows: m.length, T: padded[m[0]] })),
  );
  checkFinite(ctx.step, trainable, targets, tokenAdvantages);
  const vars = [...ctx.policy.params.values()];
  const nameOf = new Map([...ctx.policy.params].map(([name, v]) => [v.name, name]));
  let done = 0;
  let microDone = 0;
  const microTotal = micro.flat().length;
  for (const [k, members] of plan.entries()) {
    // aggregation weights and the diagnostics' count over the whole mini-batch, then cut per micro-batch
    const rowOf = members.flatMap((i, b) => targets[i].map(() => b)); // the mini-batch's positions' rows
    const weights = aggregationWeights(rowOf, c.lossAggregation); // [positions of the mini-batch]
    const offset = new Map<number, number>(); // row index → its first weight
    let at = 0;
    for (const i of members) {
      offset.set(i, at);
      at += targets[i].length;
    }
    let grads: Record<string, tf.Tensor> | null = null; // the mini-batch's gradient, summed over its micro-batches
    const parts: LossStats[] = []; // per micro-batch, its loss and diagnostics by name
    const clip: tf.Scalar[] = []; // the mini-batch's gradient norm and clip scale
    try {
      for (const m of micro[k]) {
        if (ctx.pause) await ctx.pause(microDone, microTotal);
        microDone++;
        const w = m.flatMap((i) => Array.from(weights.subarray(offset.get(i)!, offset.get(i)! + targets[i].length)));
        const batch = batchOf(
          m.map((i) => trainable[i]),
          m.map((i) => targets[i]),
          tokenAdvantages,
          padded[m[0]],
          Float32Array.from(w),
          rowOf.length,
        );
        const ref = c.klCoef > 0 ? await referenceLogProbs(ctx, batch) : null;
        const previous: Record<string, tf.Tensor> | null = grads;
        const res = tf.tidy(() => {
          let diag: Omit<LossStats, 'loss'> | null = null;
          const { value, grads: g } = tf.variableGrads(() => {
            const l = rlLoss(ctx.policy, batch, c, ref);
            diag = Object.fromEntries(
              LOSS_STATS.filter((name) => name !== 'loss').map((name) => [name, tf.keep(l[name])]),
            ) as Omit<LossStats, 'loss'>;
            return l.loss;
          }, vars);
          const sum: Record<string, tf.Tensor> = {};
          for (const [vname, gi] of Object.entries(g)) {
            const name = nameOf.get(vname)!;
            sum[name] = previous ? previous[name].add(gi) : gi;
          }
          const stats: LossStats = { loss: value, ...diag! };
          return { sum, stats };
        });
        if (previous) tf.dispose(Object.values(previous));
        grads = res.sum;
        parts.push(res.stats);
      }
      const g = grads!;
      const { norm, scale } = tf.tidy(() => globalNormScale(g, c.maxGradNorm)); // the clip, applied inside AdamW
      clip.push(norm, scale);
      // each statistic summed over the micro-batches, in their order (each is already its share of the mini-batch)
      const read = await Promise.all(
        parts.map(async (p) =>
          Object.fromEntries(
            await Promise.all(LOSS_STATS.map(async (name) => [name, (await p[name].data())[0]] as const)),
          ),
        ),
      );
      const stat = (name: keyof LossStats) => read.reduce((s, r) => s + r[name], 0);
      const [loss, gradNorm] = [stat('loss'), (await norm.data())[0]];
      if (!Number.isFinite(loss) || !Number.isFinite(gradNorm)) {
        throw new Error(
          `RL step ${ctx.step}: loss ${loss}, gradient norm ${gradNorm} — stopping before the update (weights unchanged); lower the learning rate`,
        );
      }
      if (ctx.beforeApply) await ctx.beforeApply(k, plan.length);
      ctx.optimizer.apply(g, lr, scale);
      out[METRIC.lossesPg] += stat('pgLoss');
      out[METRIC.lossesKl] += stat('kl');
      out[METRIC.lossesClipFrac] += stat('clipFrac');
      out[METRIC.lossesDualClipFrac] += stat('dualClipFrac');
      out[METRIC.lossesEntropy] += stat('entropy');
      out[METRIC.lossesRatioDev] += stat('ratioDev');
      out[METRIC.chartsGradNorm] += gradNorm;
      done++;
    } finally {
      tf.dispose([
        ...parts.flatMap((p) => Object.values(p)),
        ...clip,
        ...Object.values((grads ?? {}) as Record<string, tf.Tensor>),
      ]);
    }
  }
  for (const k of Object.keys(out) as (keyof typeof out)[]) out[k] /= Math.max(1, done);
  return { ...out, ...diagnostics };
}

/** an update's plan: which rows, in which mini-batches and micro-batches (the S-seed step plans each seed with it) */
export interface UpdatePlan {
  lr: number;
  /** the rows with a policy token */
  trainable: UpdateRow[];
  /** per trainable row: the targets t (token t+1) the policy sampled */
  targets: number[][];
  /** the mini-batches: indices into trainable */
  plan: number[][];
  /** per trainable row: its length padded */
  padded: number[];
  /** each mini-batch's micro-batches (indices into trainable), packed by padded length under the budget */
  micro: number[][][];
  diagnostics: Record<string, number>;
}

/** the plan of the PPO update of step `step` over `rows` (no tensors) */
export function planUpdate(c: RlConfig, step: number, contextLength: number, rows: readonly UpdateRow[],
  tokenAdvantages: Map<UpdateRow, number[]> | null): UpdatePlan {
  const lr = c.learningRate * Math.min(1, (step + 1) / Math.max(1, c.warmupSteps));
  const trainable = rows.filter((r) => r.episode.lossMask.some((x) => x === 1));
  // whole groups in order; zero-advantage rows only where a KL term gives them a gradient; no step without signal
  const signal = trainable.map((r) => (tokenAdvantages?.get(r) ?? [r.advantage]).some((a) => a !== 0));
  const targets = trainable.map(targetPositions);
  const plan = miniBatchPlan(trainable.map((r) => r.group), signal, c.miniBatches, c.klCoef > 0);
  const updateTokens = plan.flat().reduce((n, i) => n + policyTokens(trainable[i]), 0);
  const zeroTokens = plan.flat().filter((i) => !signal[i]).reduce((n, i) => n + policyTokens(trainable[i]), 0);
  const padded = trainable.map((r) => paddedLength(r.episode.tokens.length, contextLength));
  const micro = plan.map((members) => microBatches(members.map((i) => padded[i]), microBatchBudget(c.microBatchTokens))
    .map((m) => m.map((k) => members[k])));
  const diagnostics = { [METRIC.chartsLr]: lr, [METRIC.chartsMinibatches]: plan.length,
    [METRIC.chartsMicrobatches]: micro.flat().length,
    [METRIC.chartsZeroAdvShare]: updateTokens ? zeroTokens / updateTokens : 0 };
  return { lr, trainable, targets, plan, padded, micro, diagnostics };
}

/**
 * Fails, naming memory and what to lower, when a planned micro-batch (rows × padded length T) would not
 * fit: on wasm its estimated peak (trainingBytes) against the heap left (WASM_TRAINING_HEAP less the live
 * tensors). Other backends grow their memory as they go (cpu) or report no limit (webgpu): unchecked.
 */
function checkMemory(ctx: UpdateContext, planned: { rows: number; T: number }[]): void {
  if (tf.getBackend() !== 'wasm' || planned.length === 0) return;
  const room = WASM_TRAINING_HEAP - tf.memory().numBytes;
  const need = (p: { rows: number; T: number }) => trainingBytes(ctx.policy.config, p.rows * p.T, p.T);
  const worst = planned.reduce((a, b) => (need(b) > need(a) ? b : a));
  if (need(worst) <= room) return;
  const MB = (x: number) => Math.round(x / 2 ** 20);
  const budget = ctx.config.microBatchTokens;
  throw new Error(
    `RL step ${ctx.step}: out of memory — a micro-batch of ${worst.rows} rows × ${worst.T} tokens needs ~${MB(need(worst))} MB for ` +
      `the backward, the wasm heap has ~${MB(room)} MB left. Stopped before the update (weights unchanged; the run can resume): ` +
      `lower the micro-batch token budget (microBatchTokens, now ${budget > 0 ? budget : 'off: whole mini-batches'}${budget > 0 ? '' : '; e.g. 2048'}).`,
  );
}

/**
 * Fails, naming the row and token, when a rollout's old log-prob or an advantage is not a finite number: the
 * loss clamps the log-ratio (rlLoss.ts), which would quietly turn a NaN into a full-size push instead of the
 * NaN that the loss check catches.
 */
export function checkFinite(step: number, rows: UpdateRow[], targets: number[][],
  tokenAdvantages: Map<UpdateRow, number[]> | null): void {
  rows.forEach((r, i) => {
    const perToken = tokenAdvantages?.get(r);
    const bad = targets[i].find(
      (t) => !Number.isFinite(r.episode.logProbs[t + 1]) || !Number.isFinite(perToken ? perToken[t + 1] : r.advantage),
    );
    if (bad !== undefined) {
      throw new Error(
        `RL step ${step}: rollout row ${i} (group ${r.group}) has a non-finite old log-prob or advantage at token ${bad + 1} ` +
          '— stopping before the update (weights unchanged); the rollout or its reward is broken',
      );
    }
  });
}

/** rows padded to T, listing their loss positions with old log-probs, advantages, the given weights and bans */
export function batchOf(rows: UpdateRow[], targets: number[][], tokenAdvantages: Map<UpdateRow, number[]> | null,
  T: number, weights: Float32Array, statCount: number): RlBatch {
  const B = rows.length;
  const tokens = new Int32Array(B * T).fill(PAD); // [B, T], right-padded
  const positions: number[] = [];
  const old: number[] = [];
  const advantages: number[] = [];
  const bans: number[][] = [];
  rows.forEach((r, b) => {
    const row = trainingRow(r.episode as Episode);
    tokens.set(row.tokens, b * T);
    const banAt = new Map(row.targetBans.map((x) => [x.target, x.ids]));
    const perToken = tokenAdvantages?.get(r);
    for (const t of targets[b]) {
      positions.push(b * (T - 1) + t);
      old.push(row.oldLogProbs[t]);
      advantages.push(perToken ? perToken[t + 1] : r.advantage); // target t is token t+1
      bans.push(banAt.get(t) ?? []);
    }
  });
  return {
    tokens,
    B,
    T,
    positions: Int32Array.from(positions),
    oldLogProbs: Float32Array.from(old),
    advantages: Float32Array.from(advantages),
    weights,
    statCount,
    bans: bans.some((x) => x.length) ? bans : undefined,
  };
}

/** the frozen reference's log-probs at the batch's positions (constants of the KL term) */
async function referenceLogProbs(ctx: UpdateContext, batch: RlBatch): Promise<Float32Array> {
  const lp = tf.tidy(
    () =>
      ctx.reference!.logProbsAt(tf.tensor2d(batch.tokens, [batch.B, batch.T], 'int32'), batch.positions, undefined, {
        temperature: ctx.config.temperature,
        bans: batch.bans,
      }).logProbs,
  );
  const data = (await lp.data()) as Float32Array;
  lp.dispose();
  return data;
}

/** the targets t (token t+1) the policy sampled, in order */
function targetPositions(r: UpdateRow): number[] {
  const out: number[] = [];
  for (let t = 1; t < r.episode.lossMask.length; t++) if (r.episode.lossMask[t] === 1) out.push(t - 1);
  return out;
}

/** a row's length padded to a multiple of 16 (fewer distinct shapes), at least 2, at most the context */
function paddedLength(n: number, context: number): number {
  return Math.min(context, Math.ceil(Math.max(2, n) / PAD_MULTIPLE) * PAD_MULTIPLE);
}

/** the tokens the policy sampled in a rollout (its loss positions) */
function policyTokens(r: UpdateRow): number {
  return r.episode.lossMask.reduce((n, x) => n + x, 0);
}
