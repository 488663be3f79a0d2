// S seeds in one program (src/model/seedStack.ts, rl/seedStackOptimizer.ts) on the CLI's webgpu backend
// (Dawn in Node; SwiftShader without a GPU): the stack's forward logits, log-probs, gradients, decoding
// (prefill + steps over the fused decode attention) and one clipped AdamW update equal S separate Policies'
// on webgpu (each with the lab's fused kernels), to the kernel checks' tolerance. The cpu/wasm checks, and
// that a seed mix-up fails them, are in test/model/seedStack.test.ts.
// Opt-in (STAR_SEEDS_WEBGPU_TEST=1): SwiftShader compiles every new shader on the CPU and this takes 13–42 s
// on the 2-core machine, too much for `npm test`'s budget; the GPU check's seed probe runs the same code on
// webgpu in every rehearsal and on the GPU.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { useNodeBackend } from '../../src/node/nodeBackend.ts';
import { Policy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { SeedStackedPolicy } from '../../src/model/seedStack.ts';
import { AdamW, globalNormScale } from '../../src/rl/optimizer.ts';
import { SeedStackedAdamW } from '../../src/rl/seedStackOptimizer.ts';
import { Rng } from '../../src/env/random.ts';

const TOLERANCE = 1e-5;
const skip = process.env.STAR_WEBGPU_TEST === 'skip' || process.env.STAR_SEEDS_WEBGPU_TEST !== '1';
const config: ModelConfig = { vocabSize: 11, contextLength: 24, dModel: 8, nLayers: 2, nHeads: 2, dFF: 12, positions: 'alibi' };
const [S, B, T, R] = [3, 2, 6, 2];
const MAX_NORM = 0.5;
const GRADS = ['wte', 'h0.attn.w_qkv', 'h1.mlp.w_fc', 'h1.ln2.g', 'h0.mlp.b_fc'];

function maxErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let e = a.length === b.length ? 0 : Infinity;
  for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return Number.isNaN(e) ? Infinity : e;
}

/** S policies far from init, different per seed */
function policies(): Policy[] {
  return Array.from({ length: S }, (_, s) => {
    const p = new Policy(config, s);
    const rng = new Rng(300 + s);
    for (const v of p.params.values()) v.assign(tf.tensor(Float32Array.from({ length: v.size }, () => (rng.next() - 0.5) * 0.8 + (v.shape.length === 1 ? 0.5 : 0)), v.shape));
    return p;
  });
}

const rng = new Rng(12);
const tokens = Array.from({ length: S }, () => Array.from({ length: B }, () => Array.from({ length: T }, () => rng.int(config.vocabSize))));
const weights = Array.from({ length: S * B * (T - 1) }, () => rng.next() - 0.5);
const prompts = Array.from({ length: S * R }, (_, j) => Array.from({ length: 2 + (j % 4) }, () => rng.int(config.vocabSize)));
const next = [0, 1].map(() => Array.from({ length: S * R }, () => rng.int(config.vocabSize)));

/** the figures of the stack, seed-major, as flat arrays */
async function stacked(): Promise<Record<string, number[]>> {
  const ps = policies();
  const stack = SeedStackedPolicy.fromPolicies(ps);
  ps.forEach((p) => p.dispose());
  const adam = new SeedStackedAdamW(stack.params, S);
  const out: Record<string, number[]> = {};
  try {
    const tok = tf.tensor3d(tokens, [S, B, T], 'int32');
    const w = tf.tensor3d(weights, [S, B, T - 1]);
    const logits = tf.tidy(() => stack.forward(tok));
    out.logits = Array.from(await logits.data());
    const { value, grads } = tf.variableGrads(() => {
      const o = stack.logProbs(tok, undefined, { temperature: 0.9 });
      return o.logProbs.mul(w).sum().add(o.entropy.sum().mul(0.1)) as tf.Scalar;
    }, [...stack.params.values()]);
    out.loss = [(await value.data())[0]];
    const byName = Object.fromEntries([...stack.params].map(([n, v]) => [n, grads[v.name]]));
    for (const n of GRADS) out[`grad ${n}`] = Array.from(await byName[n].data());
    const norms = adam.apply(byName, 0.01, MAX_NORM);
    out.norms = Array.from(await norms.data());
    for (const n of GRADS) out[`after update ${n}`] = Array.from(await stack.params.get(n)!.data());
    tf.dispose([tok, w, logits, value, norms, ...Object.values(grads)]);
    const cache = stack.newCache(R, 16);
    stack.prefill(cache, prompts);
    for (const [k, ids] of next.entries()) {
      const l = stack.step(cache, ids);
      out[`decode step ${k}`] = Array.from(await l.data());
      l.dispose();
    }
    cache.dispose();
  } finally {
    adam.dispose();
    stack.dispose();
  }
  return out;
}

/** the same figures from S separate Policies, concatenated seed by seed */
async function separate(): Promise<Record<string, number[]>> {
  const ps = policies();
  const out: Record<string, number[]> = {};
  const add = (k: string, xs: ArrayLike<number>) => { (out[k] ??= []).push(...Array.from(xs)); };
  try {
    let loss = 0;
    for (const [s, p] of ps.entries()) {
      const adam = new AdamW(p.params);
      const tok = tf.tensor2d(tokens[s], [B, T], 'int32');
      const w = tf.tensor2d(weights.slice(s * B * (T - 1), (s + 1) * B * (T - 1)), [B, T - 1]);
      const logits = tf.tidy(() => p.forward(tok));
      add('logits', await logits.data());
      const { value, grads } = tf.variableGrads(() => {
        const o = p.logProbs(tok, undefined, { temperature: 0.9 });
        return o.logProbs.mul(w).sum().add(o.entropy.sum().mul(0.1)) as tf.Scalar;
      }, [...p.params.values()]);
      loss += (await value.data())[0];
      const byName = Object.fromEntries([...p.params].map(([n, v]) => [n, grads[v.name]]));
      for (const n of GRADS) add(`grad ${n}`, await byName[n].data());
      const { norm, scale } = tf.tidy(() => globalNormScale(byName, MAX_NORM));
      adam.apply(byName, 0.01, scale);
      add('norms', await norm.data());
      for (const n of GRADS) add(`after update ${n}`, await p.params.get(n)!.data());
      tf.dispose([tok, w, logits, value, norm, scale, ...Object.values(grads)]);
      adam.dispose();
      const cache = p.newCache(R, 16);
      p.prefill(cache, [0, 1], prompts.slice(s * R, (s + 1) * R));
      for (const [k, ids] of next.entries()) {
        const l = p.step(cache, ids.slice(s * R, (s + 1) * R));
        add(`decode step ${k}`, await l.data());
        l.dispose();
      }
      cache.dispose();
    }
    out.loss = [loss];
  } finally {
    ps.forEach((p) => p.dispose());
  }
  return out;
}

describe.skipIf(skip)('S seeds in one program on webgpu (Dawn in Node)', () => {
  it('equal S separate Policies: logits, gradients, a clipped update, decoding', async () => {
    await useNodeBackend('webgpu');
    const t0 = performance.now();
    const want = await separate();
    const got = await stacked();
    console.log(`seed stack on webgpu in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    const errors = Object.fromEntries(Object.keys(want).map((k) => [k, maxErr(got[k], want[k])]));
    console.log(errors);
    for (const [k, e] of Object.entries(errors)) expect(e, k).toBeLessThanOrEqual(TOLERANCE);
    expect(want.norms.some((n) => n > MAX_NORM)).toBe(true); // the clip ran for some seed
  }, 120_000);
});
