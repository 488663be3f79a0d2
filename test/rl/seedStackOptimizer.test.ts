// One update of S seeds in one program (rl/seedStackOptimizer.ts) equals S separate updates, each its own
// AdamW with its own global-norm clip (what rlUpdate/sft do: globalNormScale's scale into AdamW.apply).
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { Policy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { SeedStackedPolicy } from '../../src/model/seedStack.ts';
import { AdamW, globalNormScale } from '../../src/rl/optimizer.ts';
import { SeedStackedAdamW } from '../../src/rl/seedStackOptimizer.ts';
import { Rng } from '../../src/env/random.ts';

const config: ModelConfig = { vocabSize: 11, contextLength: 16, dModel: 8, nLayers: 1, nHeads: 2, dFF: 12, positions: 'alibi' };
const TOLERANCE = 1e-5;

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function maxErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let e = a.length === b.length ? 0 : Infinity;
  for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return Number.isNaN(e) ? Infinity : e;
}

describe('SeedStackedAdamW', () => {
  it('one stacked update equals S separate updates, each seed clipped by its own norm', () => {
    const S = 3;
    const maxNorm = 1;
    const seeds = [4, 5, 6];
    const policies = seeds.map((s) => new Policy(config, s));
    const stack = SeedStackedPolicy.fromSeeds(config, seeds);
    const adams = policies.map((p) => new AdamW(p.params));
    const stackAdam = new SeedStackedAdamW(stack.params, S);
    const rng = new Rng(9);
    // per seed a gradient of a different size: seed 0 far under maxNorm (unclipped), 1 and 2 over it by different factors
    const gains = [0.05, 0.5, 2];
    try {
      for (let step = 0; step < 3; step++) {
        const lr = 0.01 * (step + 1);
        const grads = policies.map((p, s) => Object.fromEntries([...p.params].map(([name, v]) =>
          [name, tf.tensor(Float32Array.from({ length: v.size }, () => (rng.next() - 0.5) * gains[s]), v.shape)])));
        const norms: number[] = [];
        policies.forEach((_, s) => tf.tidy(() => {
          const { norm, scale } = globalNormScale(grads[s], maxNorm);
          norms.push(norm.dataSync()[0]);
          adams[s].apply(grads[s], lr, scale);
        }));
        const stacked = Object.fromEntries(Object.keys(grads[0]).map((name) => [name, tf.stack(grads.map((g) => g[name]))]));
        const stackNorms = stackAdam.apply(stacked, lr, maxNorm);
        expect(maxErr(stackNorms.dataSync(), norms), `step ${step} norms`).toBeLessThan(TOLERANCE);
        if (step === 0) expect(norms[0] < maxNorm && norms[1] > maxNorm && norms[2] > norms[1]).toBe(true); // the clip is exercised both ways
        tf.dispose([stackNorms, ...Object.values(stacked), ...grads.flatMap((g) => Object.values(g))]);
      }
      for (let s = 0; s < S; s++) {
        const copy = stack.seedPolicy(s);
        for (const [name, v] of policies[s].params) expect(maxErr(copy.params.get(name)!.dataSync(), v.dataSync()), `${name} of seed ${s}`).toBeLessThan(TOLERANCE);
        copy.dispose();
      }
      expect(stackAdam.step).toBe(3);
    } finally {
      stackAdam.dispose();
      adams.forEach((a) => a.dispose());
      stack.dispose();
      policies.forEach((p) => p.dispose());
    }
  });

  it('refuses weights or gradients without the seed dimension', () => {
    const policy = new Policy(config, 1);
    try {
      expect(() => new SeedStackedAdamW(policy.params, 3)).toThrow(/not \[3, \.\.\.\]/);
    } finally {
      policy.dispose();
    }
  });
});
