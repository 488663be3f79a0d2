// S seeds in one program (src/model/seedStack.ts) compute what S separate Policies compute: the initial
// weights, the training forward (logits, log-probs, entropies), its gradients, and decoding (prefill + step
// over a KV cache of S·R rows), each seed against its own Policy, to the fused-kernel checks' tolerance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { Policy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { SeedStackedPolicy } from '../../src/model/seedStack.ts';
import { Rng } from '../../src/env/random.ts';

const TOLERANCE = 1e-5; // bench/browser/kernelCheck.ts: max |a − b| / (1 + |b|)
const alibi: ModelConfig = { vocabSize: 11, contextLength: 24, dModel: 8, nLayers: 2, nHeads: 2, dFF: 12, positions: 'alibi' };
const learned: ModelConfig = { ...alibi, positions: 'learned' };

function maxErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let e = 0;
  for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return Number.isNaN(e) ? Infinity : e;
}

/** weights far from init (std 0.02 is nearly linear) and different per seed, so a seed mix-up shows */
function roughen(policy: Policy, seed: number): void {
  const rng = new Rng(seed);
  for (const v of policy.params.values()) {
    v.assign(tf.tensor(Float32Array.from({ length: v.size }, () => (rng.next() - 0.5) * 0.8 + (v.shape.length === 1 ? 0.5 : 0)), v.shape));
  }
}

const tokensOf = (rng: Rng, n: number, V: number) => Array.from({ length: n }, () => rng.int(V));

for (const backend of ['cpu', 'wasm'] as const) {
  describe(`S seeds in one program equal S Policies (${backend})`, () => {
    beforeAll(async () => {
      expect(await tf.setBackend(backend)).toBe(true);
    });
    afterAll(async () => {
      await tf.setBackend('cpu');
    });

    it("fromSeeds holds each seed's own initial weights, in order", () => {
      const seeds = [3, 9, 4];
      const stack = SeedStackedPolicy.fromSeeds(alibi, seeds);
      try {
        for (const [s, seed] of seeds.entries()) {
          const policy = new Policy(alibi, seed);
          const copy = stack.seedPolicy(s);
          for (const [name, v] of policy.params) expect(Array.from(copy.params.get(name)!.dataSync()), `${name} of seed ${seed}`).toEqual(Array.from(v.dataSync()));
          policy.dispose();
          copy.dispose();
        }
      } finally {
        stack.dispose();
      }
    });

    for (const config of [alibi, learned]) {
      it(`logits, log-probs, entropies and their gradients (${config.positions} positions)`, () => {
        const S = 3, B = 2, T = 7;
        const V = config.vocabSize;
        const policies = Array.from({ length: S }, (_, s) => { const p = new Policy(config, s); roughen(p, 100 + s); return p; });
        const stack = SeedStackedPolicy.fromPolicies(policies);
        const rng = new Rng(5);
        const tokens = Array.from({ length: S }, () => Array.from({ length: B }, () => tokensOf(rng, T, V)));
        const weights = Array.from({ length: S * B * (T - 1) }, () => rng.next() - 0.5); // the loss's per-token weights
        const options = { temperature: 0.8 };
        try {
          const names = [...policies[0].params.keys()];
          // the stack: one forward for every seed; loss = Σ w·logp + 0.1·Σ entropy over all seeds
          const stacked = tf.tidy(() => {
            const tok = tf.tensor3d(tokens, [S, B, T], 'int32');
            const logits = stack.forward(tok).dataSync();
            const { logProbs, entropy } = stack.logProbs(tok, undefined, options);
            const lp = logProbs.dataSync();
            const en = entropy.dataSync();
            const w = tf.tensor3d(weights, [S, B, T - 1]);
            const { grads } = tf.variableGrads(() => {
              const o = stack.logProbs(tok, undefined, options);
              return o.logProbs.mul(w).sum().add(o.entropy.sum().mul(0.1)) as tf.Scalar;
            }, names.map((n) => stack.params.get(n)!));
            return { logits, lp, en, grads: Object.fromEntries(names.map((n) => [n, grads[stack.params.get(n)!.name].dataSync()])) };
          });
          for (let s = 0; s < S; s++) {
            const policy = policies[s];
            const ref = tf.tidy(() => {
              const tok = tf.tensor2d(tokens[s], [B, T], 'int32');
              const logits = policy.forward(tok).dataSync();
              const { logProbs, entropy } = policy.logProbs(tok, undefined, options);
              const w = tf.tensor2d(weights.slice(s * B * (T - 1), (s + 1) * B * (T - 1)), [B, T - 1]);
              const { grads } = tf.variableGrads(() => {
                const o = policy.logProbs(tok, undefined, options);
                return o.logProbs.mul(w).sum().add(o.entropy.sum().mul(0.1)) as tf.Scalar;
              }, names.map((n) => policy.params.get(n)!));
              return { logits, lp: logProbs.dataSync(), en: entropy.dataSync(), grads: Object.fromEntries(names.map((n) => [n, grads[policy.params.get(n)!.name].dataSync()])) };
            });
            const part = (x: Float32Array | Int32Array | Uint8Array, n: number) => x.slice(s * n, (s + 1) * n);
            expect(maxErr(part(stacked.logits as Float32Array, B * T * V), ref.logits), `logits of seed ${s}`).toBeLessThan(TOLERANCE);
            expect(maxErr(part(stacked.lp as Float32Array, B * (T - 1)), ref.lp), `log-probs of seed ${s}`).toBeLessThan(TOLERANCE);
            expect(maxErr(part(stacked.en as Float32Array, B * (T - 1)), ref.en), `entropies of seed ${s}`).toBeLessThan(TOLERANCE);
            for (const n of names) {
              const size = ref.grads[n].length;
              expect(maxErr(part(stacked.grads[n] as Float32Array, size), ref.grads[n]), `gradient of ${n}, seed ${s}`).toBeLessThan(TOLERANCE);
            }
          }
        } finally {
          stack.dispose();
          for (const p of policies) p.dispose();
        }
      });

      it(`decoding: a ragged prefill, then steps with a row inactive (${config.positions} positions)`, () => {
        const S = 3, R = 2;
        const V = config.vocabSize;
        const policies = Array.from({ length: S }, (_, s) => { const p = new Policy(config, s); roughen(p, 200 + s); return p; });
        const stack = SeedStackedPolicy.fromPolicies(policies);
        const rng = new Rng(8);
        const prompts = Array.from({ length: S * R }, (_, j) => tokensOf(rng, 3 + ((j * 5) % 7), V)); // 3..9 tokens a row
        const steps = [tokensOf(rng, S * R, V), tokensOf(rng, S * R, V)];
        const active = Array.from({ length: S * R }, (_, j) => j !== 3); // seed 1's second row sits out step 1
        const stackCache = stack.newCache(R, 16);
        try {
          stack.prefill(stackCache, prompts);
          const got = [stack.step(stackCache, steps[0]), stack.step(stackCache, steps[1], active)].map((t) => { const d = t.dataSync(); t.dispose(); return d; });
          for (let s = 0; s < S; s++) {
            const cache = policies[s].newCache(R, 16);
            const mine = (xs: readonly number[] | readonly number[][]) => xs.slice(s * R, (s + 1) * R);
            policies[s].prefill(cache, [0, 1], mine(prompts) as number[][]);
            const want = [policies[s].step(cache, mine(steps[0]) as number[]), policies[s].step(cache, mine(steps[1]) as number[], mine(active as unknown as number[]) as unknown as boolean[])]
              .map((t) => { const d = t.dataSync(); t.dispose(); return d; });
            cache.dispose();
            for (let k = 0; k < 2; k++) {
              for (let r = 0; r < R; r++) {
                if (k === 1 && !active[s * R + r]) continue; // an inactive row's logits are meaningless
                const j = s * R + r;
                expect(maxErr(got[k].slice(j * V, (j + 1) * V), want[k].slice(r * V, (r + 1) * V)), `step ${k} logits, seed ${s} row ${r}`).toBeLessThan(TOLERANCE);
              }
            }
          }
          expect(stackCache.rowLengths()).toEqual(prompts.map((p, j) => p.length + 1 + (active[j] ? 1 : 0)));
        } finally {
          stackCache.dispose();
          stack.dispose();
          for (const p of policies) p.dispose();
        }
      });
    }

    it('refuses tokens for another number of seeds, and a cache that is not R rows a seed', () => {
      const stack = SeedStackedPolicy.fromSeeds(alibi, [1, 2]);
      try {
        expect(() => tf.tidy(() => stack.forward(tf.zeros([3, 1, 4], 'int32') as tf.Tensor3D))).toThrow(/tokens for 3 seeds, the stack holds 2/);
        const one = new Policy(alibi, 0);
        const odd = one.newCache(3);
        expect(() => stack.step(odd, [1, 2, 3])).toThrow(/3 rows is not R rows for each of 2 seeds/);
        odd.dispose();
        one.dispose();
      } finally {
        stack.dispose();
      }
    });
  });
}
