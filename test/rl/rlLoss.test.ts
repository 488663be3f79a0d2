// The device loss (rlLoss.ts) against the scalar math (rlMath.ts): same per-token surrogate, dual-clip,
// k3 KL and aggregation, on a tiny random policy whose log-probs we read back first. Advantages, old
// and reference log-probs are chosen to hit every branch (clipped above, below, dual-clipped, unclipped).
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { createPolicy } from '../../src/model/transformer.ts';
import { preset } from '../../src/model/config.ts';
import { VOCAB } from '../../src/agent/vocab.ts';
import { aggregationWeights, rlLoss, type RlBatch } from '../../src/rl/rlLoss.ts';
import { aggregateLoss, clippedSurrogate, k3Kl } from '../../src/rl/rlMath.ts';

describe('rlLoss matches rlMath', () => {
  it.each(['token-mean', 'seq-mean-token-mean'] as const)('%s', async (mode) => {
    await tf.setBackend('cpu');
    const policy = createPolicy({ ...preset('s', VOCAB.size, 32), dModel: 16, nLayers: 1, nHeads: 2, dFF: 32 }, 3);
    const B = 2;
    const T = 12;
    const tokens = Int32Array.from({ length: B * T }, (_, i) => (i * 37 + 11) % VOCAB.size);
    const positions = Int32Array.from([0, 3, 4, 7, 10, 11 + 1, 11 + 2, 11 + 6, 11 + 9]); // row 0: 5 positions, row 1: 4
    const rowOf = Array.from(positions, (p) => Math.floor(p / (T - 1)));
    const lp = tf.tidy(() => policy.logProbsAt(tf.tensor2d(tokens, [B, T], 'int32'), positions).logProbs);
    const logp = Array.from(await lp.data());
    lp.dispose();
    const shifts = [Math.log(1.5), Math.log(0.5), Math.log(5), 0.1, -0.05, Math.log(0.7), Math.log(1.4), 0, Math.log(3)];
    const advantages = [1, -1, -1, 2, -0.5, 0.8, -1.2, 0.3, -2];
    const oldLogProbs = logp.map((x, i) => x - shifts[i]); // ratio = exp(shift)
    const ref = logp.map((x, i) => x + 0.3 * Math.sin(i + 1));
    const weights = aggregationWeights(rowOf, mode);
    const batch: RlBatch = { tokens, B, T, positions, oldLogProbs: Float32Array.from(oldLogProbs), advantages: Float32Array.from(advantages), weights };
    const cfg = { clipLow: 0.2, clipHigh: 0.28, dualClip: 3, klCoef: 0.05, temperature: 1 };
    const out = tf.tidy(() => {
      const l = rlLoss(policy, batch, cfg, Float32Array.from(ref));
      return tf.stack([l.loss, l.pgLoss, l.clipFrac, l.dualClipFrac, l.kl]);
    });
    const [loss, pg, clipFrac, dualFrac, kl] = Array.from(await out.data());
    out.dispose();
    const per = logp.map((x, i) => clippedSurrogate(x, oldLogProbs[i], advantages[i], cfg));
    const kls = logp.map((x, i) => k3Kl(x, ref[i]));
    const rows = (vals: number[]) => [0, 1].map((r) => vals.filter((_, i) => rowOf[i] === r));
    const masks = [0, 1].map((r) => rowOf.filter((x) => x === r).map(() => 1));
    const wantPg = aggregateLoss(rows(per.map((p) => p.loss)), masks, mode);
    const wantLoss = aggregateLoss(rows(per.map((p, i) => p.loss + cfg.klCoef * kls[i])), masks, mode);
    expect(pg).toBeCloseTo(wantPg, 4);
    expect(loss).toBeCloseTo(wantLoss, 4);
    expect(clipFrac).toBeCloseTo(per.filter((p) => p.clipped).length / per.length, 5);
    expect(dualFrac).toBeCloseTo(per.filter((p) => p.dualClipped).length / per.length, 5);
    expect(kl).toBeCloseTo(kls.reduce((a, b) => a + b, 0) / kls.length, 4);
    expect(per.some((p) => p.clipped) && per.some((p) => p.dualClipped) && per.some((p) => !p.clipped)).toBe(true);
    policy.dispose();
  });
});
