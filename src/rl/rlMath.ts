// The RL math of GRPO, DAPO and ARPO as plain functions of numbers. The trainer's tensor
// loss (rlLoss.ts) computes the same formulas on the device and is tested against these; these are
// tested against hand-computed vectors. No tfjs here.
//
// Sources: veRL `verl/trainer/ppo/core_algos.py` (GRPO advantage, clipped surrogate with dual-clip,
// k3 "low_var_kl", loss aggregation); DAPO (Yu et al. 2025, arXiv 2503.14476: clip-higher, soft
// overlong punishment); ARPO (Dong et al. 2025, arXiv 2507.19849: hard/soft advantage attribution;
// its entropy-triggered branching is in src/agent/arpoBranching.ts, beside the rollout that uses it).

/**
 * GRPO outcome advantage (veRL compute_grpo_outcome_advantage): within each group,
 * (r − mean) / (std + eps) with the unbiased (N−1) std. A group of one has mean 0 and std 1, so it
 * keeps its raw reward, as veRL does. `groups[i]` names the group of rewards[i].
 */
export function grpoAdvantages(rewards: readonly number[], groups: readonly (number | string)[], eps = 1e-6): number[] {
  if (rewards.length !== groups.length)
    throw new Error(`grpoAdvantages: ${rewards.length} rewards for ${groups.length} group ids`);
  const members = new Map<number | string, number[]>();
  groups.forEach((g, i) => {
    if (!members.has(g)) members.set(g, []);
    members.get(g)!.push(i);
  });
  const out = new Array<number>(rewards.length).fill(0);
  for (const idx of members.values()) {
    let mean = 0;
    let std = 1;
    if (idx.length > 1) {
      mean = idx.reduce((s, i) => s + rewards[i], 0) / idx.length;
      std = Math.sqrt(idx.reduce((s, i) => s + (rewards[i] - mean) ** 2, 0) / (idx.length - 1));
    }
    for (const i of idx) out[i] = (rewards[i] - mean) / (std + eps);
  }
  return out;
}

/** true when every reward of the group is the same (DAPO's dynamic sampling drops such groups: zero advantage, no
 * signal) */
export function isZeroStdGroup(rewards: readonly number[]): boolean {
  return rewards.every((r) => r === rewards[0]);
}

export interface ClipConfig {
  /** the ratio is clipped below at 1 − clipLow (PPO ε; DAPO ε_low 0.2) */
  clipLow: number;
  /** and above at 1 + clipHigh (DAPO's clip-higher ε_high 0.28) */
  clipHigh: number;
  /** dual-clip constant c for negative advantages (Ye et al. 2020; veRL clip_ratio_c = 3) */
  dualClip: number;
}

export const LOG_RATIO_CLAMP = 20;

/**
 * The clipped surrogate of one token (veRL compute_policy_loss, "vanilla"): ratio = exp(clamp(logp −
 * oldLogp, ±20)); loss = max(−A·ratio, −A·clip(ratio, 1−ε_low, 1+ε_high)); for A < 0 also capped at
 * −A·c (dual-clip). `clipped`: the clipped term was the larger (veRL's pg_clipfrac); `dualClipped`:
 * the dual-clip cap bound (pg_clipfrac_lower).
 */
export function clippedSurrogate(
  logp: number,
  oldLogp: number,
  advantage: number,
  c: ClipConfig,
): { loss: number; ratio: number; clipped: boolean; dualClipped: boolean } {
  const ratio = Math.exp(Math.min(LOG_RATIO_CLAMP, Math.max(-LOG_RATIO_CLAMP, logp - oldLogp)));
  const l1 = -advantage * ratio;
  const l2 = -advantage * Math.min(1 + c.clipHigh, Math.max(1 - c.clipLow, ratio));
  const clippedLoss = Math.max(l1, l2);
  if (advantage < 0) {
    const l3 = -advantage * c.dualClip;
    return { loss: Math.min(l3, clippedLoss), ratio, clipped: l2 > l1, dualClipped: clippedLoss > l3 };
  }
  return { loss: clippedLoss, ratio, clipped: l2 > l1, dualClipped: false };
}

export const KL_CLAMP = 10;

/**
 * The k3 estimator of KL(π‖π_ref) at one sampled token (Schulman 2020; veRL "low_var_kl"):
 * exp(ref − logp) − (ref − logp) − 1, clamped to [−10, 10]. Non-negative, unbiased, low variance.
 */
export function k3Kl(logp: number, refLogp: number): number {
  const d = Math.min(LOG_RATIO_CLAMP, Math.max(-LOG_RATIO_CLAMP, refLogp - logp));
  return Math.min(KL_CLAMP, Math.max(-KL_CLAMP, Math.exp(d) - d - 1));
}

export type LossAggregation = 'token-mean' | 'seq-mean-token-mean';

/**
 * Aggregates per-token losses (veRL agg_loss): `token-mean` averages over every unmasked token of the
 * batch (DAPO's token-level loss: long sequences weigh more); `seq-mean-token-mean` averages each
 * sequence's tokens, then the sequences (GRPO's original form). Sequences with no unmasked token are
 * skipped by the second.
 */
export function aggregateLoss(
  values: readonly (readonly number[])[],
  masks: readonly (readonly number[])[],
  mode: LossAggregation,
): number {
  if (values.length !== masks.length) throw new Error('aggregateLoss: values and masks differ in length');
  if (mode === 'token-mean') {
    let sum = 0;
    let n = 0;
    values.forEach((row, i) =>
      row.forEach((x, t) => {
        sum += x * masks[i][t];
        n += masks[i][t];
      }),
    );
    return n > 0 ? sum / n : 0;
  }
  let total = 0;
  let seqs = 0;
  values.forEach((row, i) => {
    let s = 0;
    let n = 0;
    row.forEach((x, t) => {
      s += x * masks[i][t];
      n += masks[i][t];
    });
    if (n > 0) {
      total += s / n;
      seqs++;
    }
  });
  return seqs > 0 ? total / seqs : 0;
}

/**
 * DAPO's soft overlong punishment: 0 up to maxLength − buffer tokens, then linear down to −1 at
 * maxLength (and −1 beyond). E.g. maxLength 100, buffer 20, length 90 → −0.5. buffer 0: no penalty.
 */
export function overlongPenalty(length: number, maxLength: number, buffer: number): number {
  if (buffer <= 0) return 0;
  const exceed = length - (maxLength - buffer);
  return exceed <= 0 ? 0 : Math.max(-1, -exceed / buffer);
}

/** where an ARPO rollout came from: `parent` (index in its group, null from the prompt) and the token
 *  index `forkAt` up to which it shares the parent's tokens (tokens[0, forkAt) are the parent's) */
export interface BranchNode {
  parent: number | null;
  forkAt: number;
}

/** Length of the token prefix two rollouts of one ARPO tree share (the prompt, for two roots). */
export function sharedPrefixLength(
  tree: readonly BranchNode[],
  i: number,
  j: number,
  lengths: readonly number[],
  promptLength: number,
): number {
  if (i === j) return lengths[i];
  // the ancestors of i with the shared length down to each (min of the forkAts along the way)
  const upFrom = (k: number) => {
    const m = new Map<number, number>();
    let shared = lengths[k];
    let node = k;
    m.set(node, shared);
    while (tree[node].parent !== null) {
      shared = Math.min(shared, tree[node].forkAt);
      node = tree[node].parent!;
      m.set(node, shared);
    }
    return m;
  };
  const ai = upFrom(i);
  const aj = upFrom(j);
  let best = promptLength; // different roots: only the prompt
  for (const [node, si] of ai) {
    const sj = aj.get(node);
    if (sj !== undefined) best = Math.max(best, Math.min(si, sj));
  }
  return best;
}

/**
 * ARPO's "hard" advantage attribution: a token shared by several rollouts of a tree (their common
 * prefix) gets the mean advantage of all rollouts sharing it; a rollout's own tokens keep its own.
 * Returns per-token advantages, one array per rollout (length = lengths[i]).
 */
export function arpoHardAdvantages(
  advantages: readonly number[],
  tree: readonly BranchNode[],
  lengths: readonly number[],
  promptLength: number,
): number[][] {
  const n = advantages.length;
  return advantages.map((_, i) => {
    const shared = Array.from({ length: n }, (_, j) => sharedPrefixLength(tree, i, j, lengths, promptLength));
    const out = new Array<number>(lengths[i]);
    for (let t = 0; t < lengths[i]; t++) {
      let s = 0;
      let c = 0;
      for (let j = 0; j < n; j++)
        if (shared[j] > t) {
          s += advantages[j];
          c++;
        }
      out[t] = s / c;
    }
    return out;
  });
}

/**
 * The PPO mini-batches of one RL step, as lists of row indices. Whole groups, cut in order
 * as veRL cuts its batch: an optimizer step sees complete groups, whose advantages sum to zero (a
 * half-group of [−0.5, −0.5] would only push its sampled tokens down). A row whose advantage is zero
 * at every token carries no policy-gradient signal: it is left out unless `keepZeroRows` (with a KL
 * term it still has a gradient: veRL's GRPO keeps it). A mini-batch with no signal at all is never
 * formed: AdamW would move the weights on its momentum alone (the m + Success quick run drifted so).
 * `signal[i]`: row i has a non-zero advantage somewhere.
 */
export function miniBatchPlan(
  groupOf: readonly number[],
  signal: readonly boolean[],
  miniBatches: number,
  keepZeroRows: boolean,
): number[][] {
  if (groupOf.length !== signal.length)
    throw new Error(`miniBatchPlan: ${groupOf.length} group ids for ${signal.length} rows`);
  const groups = new Map<number, number[]>(); // insertion order = batch order
  groupOf.forEach((g, i) => {
    if (!keepZeroRows && !signal[i]) return;
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(i);
  });
  const list = [...groups.values()];
  const n = Math.min(Math.max(1, miniBatches), list.length);
  const out: number[][] = [];
  for (let k = 0; k < n; k++) {
    const rows = list.slice(Math.floor((k * list.length) / n), Math.floor(((k + 1) * list.length) / n)).flat();
    if (rows.some((i) => signal[i])) out.push(rows);
  }
  return out;
}

/**
 * The micro-batches of one PPO mini-batch under a token budget (veRL's dynamic batch size,
 * ppo_max_token_len_per_gpu): the optimizer step's gradient is accumulated over them, so peak memory
 * follows the budget, not the group size, and a row is padded only to the longest of its own
 * micro-batch. `padded[i]`: row i's length once padded; a micro-batch of n rows costs n · (its
 * longest). Rows are taken longest first and a micro-batch grows while it stays within `budget`; a
 * row longer than the budget goes alone. budget 0: no budget, one micro-batch (the unsplit update).
 * Returns lists of indices into `padded`.
 */
export function microBatches(padded: readonly number[], budget: number): number[][] {
  const order = padded.map((_, i) => i).sort((a, b) => padded[b] - padded[a] || a - b); // longest first, stable
  if (budget <= 0) return order.length ? [order] : [];
  const out: number[][] = [];
  for (const i of order) {
    const last = out[out.length - 1];
    // sorted longest first: the micro-batch's first row sets its padded length
    if (last && (last.length + 1) * padded[last[0]] <= budget) last.push(i);
    else out.push([i]);
  }
  return out;
}
