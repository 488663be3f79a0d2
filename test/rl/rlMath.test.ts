// The RL math against hand-computed vectors. Each expected number is worked out in the
// comment beside it, not produced by the code under test.
import { describe, expect, it } from 'vitest';
import {
  aggregateLoss, arpoHardAdvantages, clippedSurrogate, grpoAdvantages, isZeroStdGroup, k3Kl,
  microBatches, miniBatchPlan, overlongPenalty, sharedPrefixLength, type BranchNode,
} from '../../src/rl/rlMath.ts';

const clip = { clipLow: 0.2, clipHigh: 0.28, dualClip: 3 };

describe('grpoAdvantages', () => {
  it('normalises by the unbiased std: [1, 0, 0, 1] → ±0.8660', () => {
    // mean 0.5, unbiased var = 4·0.25/3 = 1/3, std = 0.577350; 0.5/0.577350 = 0.866025
    const a = grpoAdvantages([1, 0, 0, 1], [0, 0, 0, 0]);
    for (const [x, want] of a.map((x, i) => [x, [0.866025, -0.866025, -0.866025, 0.866025][i]])) expect(x).toBeCloseTo(want, 5);
  });
  it('all-equal rewards give 0; groups are independent', () => {
    const a = grpoAdvantages([0.3, 0.3, 1, 0], ['a', 'a', 'b', 'b']);
    expect(a[0]).toBe(0);
    expect(a[1]).toBe(0);
    // group b: mean 0.5, std = sqrt(0.5) = 0.707107 → ±0.707106
    expect(a[2]).toBeCloseTo(0.707106, 5);
    expect(a[3]).toBeCloseTo(-0.707106, 5);
  });
  it('a group of one keeps its raw reward (mean 0, std 1, as veRL)', () => {
    expect(grpoAdvantages([0.7], [5])[0]).toBeCloseTo(0.7 / (1 + 1e-6), 9);
  });
  it('eps keeps a near-zero std finite', () => {
    const a = grpoAdvantages([1, 1 + 1e-9], [0, 0]);
    expect(a.every(Number.isFinite)).toBe(true);
  });
  it('isZeroStdGroup', () => {
    expect(isZeroStdGroup([1, 1, 1])).toBe(true);
    expect(isZeroStdGroup([1, 0, 1])).toBe(false);
  });
});

describe('clippedSurrogate', () => {
  it('positive advantage, ratio above 1 + ε_high: clipped at 1.28', () => {
    const r = clippedSurrogate(Math.log(1.5), 0, 1, clip); // −1·1.5 = −1.5 vs −1·1.28 → max −1.28
    expect(r.ratio).toBeCloseTo(1.5, 9);
    expect(r.loss).toBeCloseTo(-1.28, 9);
    expect(r.clipped).toBe(true);
    expect(r.dualClipped).toBe(false);
  });
  it('positive advantage, ratio below 1: not clipped (the max keeps −A·ratio)', () => {
    const r = clippedSurrogate(Math.log(0.5), 0, 2, clip); // −2·0.5 = −1 vs −2·0.8 = −1.6 → −1
    expect(r.loss).toBeCloseTo(-1, 9);
    expect(r.clipped).toBe(false);
  });
  it('negative advantage, ratio below 1 − ε_low: clipped at 0.8', () => {
    const r = clippedSurrogate(Math.log(0.5), 0, -1, clip); // 0.5 vs 0.8 → 0.8; dual cap 3 does not bind
    expect(r.loss).toBeCloseTo(0.8, 9);
    expect(r.clipped).toBe(true);
    expect(r.dualClipped).toBe(false);
  });
  it('negative advantage, huge ratio: dual-clip caps the loss at −A·c = 3', () => {
    const r = clippedSurrogate(Math.log(5), 0, -1, clip); // 5 vs 1.28 → 5; min(3, 5) = 3
    expect(r.loss).toBeCloseTo(3, 9);
    expect(r.dualClipped).toBe(true);
  });
  it('separate ε_low / ε_high: A > 0 at ratio 1.25 is inside 1 + 0.28, A < 0 at 0.82 inside 1 − 0.2', () => {
    expect(clippedSurrogate(Math.log(1.25), 0, 1, clip).clipped).toBe(false);
    expect(clippedSurrogate(Math.log(0.82), 0, -1, clip).clipped).toBe(false);
    expect(clippedSurrogate(Math.log(1.25), 0, 1, { ...clip, clipHigh: 0.2 }).clipped).toBe(true);
  });
  it('clamps the log-ratio to ±20', () => {
    expect(clippedSurrogate(30, 0, 1, clip).ratio).toBeCloseTo(Math.exp(20), 0);
    expect(clippedSurrogate(-30, 0, 1, clip).ratio).toBeCloseTo(Math.exp(-20), 15);
  });
});

describe('k3Kl', () => {
  it('hand values', () => {
    expect(k3Kl(-1, -1)).toBe(0);
    expect(k3Kl(-1, -2)).toBeCloseTo(Math.exp(-1), 9); // d = −1: e⁻¹ + 1 − 1 = 0.367879
    expect(k3Kl(-2, -1)).toBeCloseTo(Math.E - 2, 9); // d = 1: e − 1 − 1 = 0.718282
  });
  it('is clamped to 10', () => {
    expect(k3Kl(-30, 0)).toBe(10);
  });
});

describe('aggregateLoss', () => {
  const values = [[1, 2, 3], [4, 0, 0]];
  const masks = [[1, 1, 0], [1, 0, 0]];
  it('token-mean: (1 + 2 + 4) / 3', () => expect(aggregateLoss(values, masks, 'token-mean')).toBeCloseTo(7 / 3, 12));
  it('seq-mean-token-mean: ((1 + 2)/2 + 4/1) / 2 = 2.75', () => expect(aggregateLoss(values, masks, 'seq-mean-token-mean')).toBeCloseTo(2.75, 12));
  it('an all-masked sequence is skipped by seq-mean, and nothing at all gives 0', () => {
    expect(aggregateLoss([[1, 2], [9, 9]], [[1, 1], [0, 0]], 'seq-mean-token-mean')).toBeCloseTo(1.5, 12);
    expect(aggregateLoss([[9]], [[0]], 'token-mean')).toBe(0);
  });
});

describe('overlongPenalty', () => {
  it('L_max 100, cache 20: length 90 → −0.5', () => expect(overlongPenalty(90, 100, 20)).toBeCloseTo(-0.5, 12));
  it('0 up to L_max − cache, −1 at and past L_max, none without a buffer', () => {
    expect(overlongPenalty(80, 100, 20)).toBe(0);
    expect(overlongPenalty(100, 100, 20)).toBe(-1);
    expect(overlongPenalty(130, 100, 20)).toBe(-1);
    expect(overlongPenalty(99, 100, 0)).toBe(0);
  });
});

describe('ARPO', () => {
  // rollouts 0 and 1 from the prompt (3 tokens); 2 branched from 0 at token 6; 3 from 2 at token 8
  const tree: BranchNode[] = [{ parent: null, forkAt: 0 }, { parent: null, forkAt: 0 }, { parent: 0, forkAt: 6 }, { parent: 2, forkAt: 8 }];
  const lengths = [10, 9, 12, 11];
  it('shared prefixes follow the tree', () => {
    expect(sharedPrefixLength(tree, 0, 1, lengths, 3)).toBe(3);
    expect(sharedPrefixLength(tree, 0, 2, lengths, 3)).toBe(6);
    expect(sharedPrefixLength(tree, 2, 3, lengths, 3)).toBe(8);
    expect(sharedPrefixLength(tree, 0, 3, lengths, 3)).toBe(6); // 3 inherits [0, 8) of 2, which inherits [0, 6) of 0
    expect(sharedPrefixLength(tree, 1, 3, lengths, 3)).toBe(3);
    expect(sharedPrefixLength(tree, 2, 2, lengths, 3)).toBe(12);
  });
  it('hard advantage: shared tokens get the mean of the rollouts that share them', () => {
    const adv = [1, -1, 0.4, 0.1];
    const h = arpoHardAdvantages(adv, tree, lengths, 3);
    // prompt tokens: all four → (1 − 1 + 0.4 + 0.1)/4 = 0.125
    expect(h[0][0]).toBeCloseTo(0.125, 12);
    // rollout 0, tokens 3..5: shared with 2 and 3 → (1 + 0.4 + 0.1)/3 = 0.5
    expect(h[0][4]).toBeCloseTo(0.5, 12);
    // rollout 0, tokens 6..9: its own → 1
    expect(h[0][7]).toBe(1);
    // rollout 2, tokens 6..7: shared with 3 → 0.25; 8..: its own 0.4
    expect(h[2][6]).toBeCloseTo(0.25, 12);
    expect(h[2][9]).toBeCloseTo(0.4, 12);
    // rollout 1 beyond the prompt: its own −1
    expect(h[1][5]).toBe(-1);
    expect(h.map((r) => r.length)).toEqual(lengths);
  });
});

describe('miniBatchPlan (groups kept together, no step without signal)', () => {
  // rows 0-3 group 0 (signal), 4-7 group 1 (zero std), 8-11 group 2 (signal), 12-15 group 3 (signal)
  const groupOf = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3];
  const signal = groupOf.map((g) => g !== 1);
  it('cuts whole groups in order and leaves zero-advantage rows out', () => {
    expect(miniBatchPlan(groupOf, signal, 2, false)).toEqual([[0, 1, 2, 3], [8, 9, 10, 11, 12, 13, 14, 15]]);
  });
  it('keeps zero rows for a KL term, but never forms a mini-batch with no signal', () => {
    expect(miniBatchPlan(groupOf, signal, 4, true)).toEqual([[0, 1, 2, 3], [8, 9, 10, 11], [12, 13, 14, 15]]);
    expect(miniBatchPlan(groupOf, signal, 2, true)).toEqual([[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]);
  });
  it('no signal anywhere: no mini-batch at all', () => {
    expect(miniBatchPlan(groupOf, groupOf.map(() => false), 2, true)).toEqual([]);
    expect(miniBatchPlan(groupOf, groupOf.map(() => false), 2, false)).toEqual([]);
  });
  it('every group lies in one mini-batch', () => {
    for (const n of [1, 2, 3, 5]) {
      const plan = miniBatchPlan(groupOf, groupOf.map(() => true), n, false);
      for (const mb of plan) for (const g of new Set(mb.map((i) => groupOf[i]))) expect(mb.filter((i) => groupOf[i] === g)).toHaveLength(4);
    }
  });
});

describe('microBatches (token budget, rows packed by length)', () => {
  it('packs longest first while rows × longest stays within the budget', () => {
    // padded lengths: rows 1 and 3 are 448, row 0 is 288, row 2 is 160, row 4 is 96
    expect(microBatches([288, 448, 160, 448, 96], 1024)).toEqual([[1, 3], [0, 2, 4]]);
    expect(microBatches([288, 448, 160, 448, 96], 800)).toEqual([[1], [3], [0, 2], [4]]);
  });
  it('a row longer than the budget goes alone; budget 0 is one micro-batch', () => {
    expect(microBatches([576, 100], 256)).toEqual([[0], [1]]);
    expect(microBatches([96, 576, 160], 0)).toEqual([[1, 2, 0]]);
    expect(microBatches([], 256)).toEqual([]);
  });
  it('every row once, and no micro-batch of several rows over the budget', () => {
    const padded = Array.from({ length: 16 }, (_, i) => 16 * (1 + ((i * 7) % 30)));
    for (const budget of [64, 500, 2048, 9000]) {
      const plan = microBatches(padded, budget);
      expect(plan.flat().sort((a, b) => a - b)).toEqual(padded.map((_, i) => i));
      for (const m of plan) if (m.length > 1) expect(m.length * Math.max(...m.map((i) => padded[i]))).toBeLessThanOrEqual(budget);
    }
  });
});
