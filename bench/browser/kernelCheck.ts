// The fused WebGPU kernels (src/model/kernels) against the plain tfjs ops they replace, on this
// browser's `webgpu` backend: values and gradients, and no tensor left behind. Served by Vite as
// /bench/browser/kernels.html and driven headless by scripts/webgpu-kernels.mjs; publishes
// `globalThis.__check` = { done, checks: [{ name, maxErr, tol, ok }], error? }. Shapes are tiny:
// on SwiftShader every new program costs a shader compile.
import * as tf from '@tensorflow/tfjs';
import { startFirst } from '../../src/worker/backend.ts';
import { setFusedKernels } from '../../src/model/kernels/webgpu.ts';
import { setCompileAhead } from '../../src/model/kernels/compileAhead.ts';
import { layerNorm } from '../../src/model/kernels/layerNorm.ts';
import { biasGelu } from '../../src/model/kernels/biasGelu.ts';
import { AdamW, globalNormScale } from '../../src/rl/optimizer.ts';
import { createPolicy } from '../../src/model/transformer.ts';
import { type ModelConfig } from '../../src/model/config.ts';
import { SeedStackedPolicy } from '../../src/model/seedStack.ts';
import { SeedStackDecoder } from '../../src/model/seedStackDecode.ts';
import { SftTrainer, type SftExample } from '../../src/rl/sft.ts';
import { Rng } from '../../src/env/random.ts';

interface Check { name: string; maxErr: number; tol: number; ok: boolean }
const state: { done: boolean; checks: Check[]; adapter: string; error?: string } = {
  done: false,
  checks: [],
  adapter: '',
};
(globalThis as unknown as { __check: typeof state }).__check = state;
const out = document.getElementById('out') as HTMLElement;
const show = () => { out.textContent = JSON.stringify(state, null, 1); };

/** max |a − b| / (1 + |b|) over every element: relative for large values, absolute near 0 */
async function maxErr(a: tf.Tensor, b: tf.Tensor): Promise<number> {
  const [x, y] = await Promise.all([a.data(), b.data()]);
  if (x.length !== y.length) return Infinity;
  let e = 0;
  for (let i = 0; i < x.length; i++) e = Math.max(e, Math.abs(x[i] - y[i]) / (1 + Math.abs(y[i])));
  return Number.isNaN(e) ? Infinity : e;
}

function record(name: string, err: number, tol: number): void {
  state.checks.push({ name, maxErr: err, tol, ok: err <= tol });
  show();
}

/** runs fn with the fused kernels on and off; fn returns named tensors to compare (then disposed) */
async function compare(
  name: string,
  tol: number,
  fn: () => Promise<Record<string, tf.Tensor>> | Record<string, tf.Tensor>,
): Promise<void> {
  setFusedKernels(false);
  const ref = await fn();
  setFusedKernels(true);
  const before = tf.memory().numTensors;
  const fused = await fn();
  const leaked = tf.memory().numTensors - before - Object.keys(fused).length;
  for (const key of Object.keys(ref)) record(`${name}: ${key}`, await maxErr(fused[key], ref[key]), tol);
  record(`${name}: tensors left behind`, Math.abs(leaked), 0);
  tf.dispose([...Object.values(ref), ...Object.values(fused)]);
}

function randn(shape: number[], seed: number, std = 1): tf.Tensor {
  const rng = new Rng(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  return tf.tensor(Float32Array.from({ length: n }, () => std * (rng.next() * 2 - 1)), shape);
}

/** three AdamW updates of a decayed matrix and an undecayed bias, clipped by the global norm */
async function adamwCheck(): Promise<void> {
  await compare('AdamW ×3 (clip, decay)', 1e-5, async () => {
    const params = new Map([['h0.mlp.w_fc', [24, 40]], ['h0.mlp.b_fc', [40]]].map(([name, shape], i) =>
      [name as string, tf.tidy(() => tf.variable(randn(shape as number[], i + 1)))])); // tidy frees the initial values
    const opt = new AdamW(params);
    const result: Record<string, tf.Tensor> = {};
    for (let step = 0; step < 3; step++) {
      const grads: Record<string, tf.Tensor> = {
        'h0.mlp.w_fc': randn([24, 40], 10 + step, 3),
        'h0.mlp.b_fc': randn([40], 20 + step, 3),
      };
      const { norm, scale } = tf.tidy(() => globalNormScale(grads, 1));
      opt.apply(grads, 1e-2, scale);
      if (step === 0) result.norm = norm; else norm.dispose();
      tf.dispose([scale, ...Object.values(grads)]);
    }
    for (const [name, v] of params) result[name] = v.clone();
    const saved = await opt.save(); // the moments, through the checkpoint path
    const moments = tf.io.decodeWeights(saved.buffer, saved.specs);
    opt.dispose();
    tf.dispose([...params.values()]);
    return { ...result, ...moments };
  });
}

/** LayerNorm's values and its gradients in x, g and b, through loss = Σ y·w */
async function layerNormCheck(): Promise<void> {
  const [x, g, b, w] = [randn([2, 5, 24], 30, 2), randn([24], 31), randn([24], 32), randn([2, 5, 24], 33)];
  await compare('LayerNorm [2, 5, 24]', 1e-5, () => {
    const y = tf.tidy(() => layerNorm(x, g, b));
    const [dx, dg, db] = tf.grads((xi: tf.Tensor, gi: tf.Tensor, bi: tf.Tensor) => layerNorm(xi, gi, bi).mul(w).sum())([
      x,
      g,
      b,
    ]);
    return { y, dx, dg, db };
  });
  tf.dispose([x, g, b, w]);
}

/** gelu(z + b)'s values and its gradients in z and b, through loss = Σ y·w */
async function biasGeluCheck(): Promise<void> {
  const [z, b, w] = [randn([2, 3, 40], 40, 3), randn([40], 41), randn([2, 3, 40], 42)];
  await compare('bias+GELU [2, 3, 40]', 1e-5, () => {
    const y = tf.tidy(() => biasGelu(z as tf.Tensor3D, b));
    const [dz, db] = tf.grads((zi: tf.Tensor, bi: tf.Tensor) => biasGelu(zi as tf.Tensor3D, bi).mul(w).sum())([z, b]);
    return { y, dz, db };
  });
  tf.dispose([z, b, w]);
}

/** the fused decode step and prefill against the plain path inside Policy.step and Policy.prefill: logits of
 *  KV-cache steps, rows at different lengths past a 64-slot boundary, a prefill of some rows between
 *  steps, ALiBi and learned positions */
async function decodeCheck(): Promise<void> {
  for (const positions of ['alibi', 'learned'] as const) {
    const config: ModelConfig = {
      vocabSize: 32,
      contextLength: 96,
      dModel: 16,
      nLayers: 1,
      nHeads: 2,
      dFF: 32,
      positions,
    };
    await compare(`decode steps, ${positions} positions`, 1e-5, () => {
      const policy = createPolicy(config, 2);
      const rng = new Rng(7);
      const cache = policy.newCache(3, 96);
      policy.prefill(cache, [0, 1, 2], [70, 5, 33].map((n) => Array.from({ length: n }, () => rng.int(32))));
      const out: Record<string, tf.Tensor> = {};
      for (let s = 0; s < 3; s++) out[`logits ${s}`] = policy.step(cache, [0, 1, 2].map(() => rng.int(32)));
      // a later prefill of some rows, out of order (the fused prefill reads each token's own cache row)
      policy.prefill(cache, [2, 0], [9, 4].map((n) => Array.from({ length: n }, () => rng.int(32))));
      out['logits after a prefill of rows 2, 0'] = policy.step(cache, [0, 1, 2].map(() => rng.int(32)));
      cache.dispose();
      policy.dispose();
      return out;
    });
  }
}

/** two seeds' rollouts decoding together (model/seedStackDecode.ts): their prefills in one round — on the fused
 *  path one pass of the kernels for both seeds (SeedStackedPolicy.prefillRows), ragged rows and lengths — against
 *  the plain path (each seed's own Policy prefilling); logits of the decode steps after them */
async function seedStackCheck(): Promise<void> {
  const config: ModelConfig = { vocabSize: 32, contextLength: 96, dModel: 16, nLayers: 1, nHeads: 2, dFF: 32,
    positions: 'alibi' };
  await compare('two seeds decoding together', 1e-5, async () => {
    const policies = [createPolicy(config, 3), createPolicy(config, 4)];
    const stack = SeedStackedPolicy.fromPolicies(policies);
    const decoder = new SeedStackDecoder(stack, policies);
    const rng = new Rng(9);
    const toks = (n: number) => Array.from({ length: n }, () => rng.int(32));
    const [a, b] = decoder.views;
    const [ca, cb] = [a.newCache(3, 96), b.newCache(2, 96)];
    const out: Record<string, tf.Tensor> = {};
    await Promise.all([
      a.prefill(ca, [0, 1, 2], [toks(5), toks(70), toks(1)]),
      b.prefill(cb, [1, 0], [toks(9), toks(33)]),
    ]);
    [out['seed 0, a step after both prefilled'], out['seed 1, a step after both prefilled']] =
      await Promise.all([a.step(ca, [1, 2, 3]), b.step(cb, [4, 5])]);
    // seed 0 prefills rows 2 and 0 while seed 1's step waits for it
    const after = a.prefill(ca, [2, 0], [toks(4), toks(2)]).then(() => a.step(ca, [6, 7, 8]));
    [out['seed 0, after its own prefill'], out['seed 1, waiting meanwhile']] =
      await Promise.all([after, b.step(cb, [9, 10])]);
    ca.dispose();
    cb.dispose();
    stack.dispose();
    policies.forEach((p) => p.dispose());
    return out;
  });
}

/** two SFT steps of a tiny model (forward, backward, clip, AdamW): weights after them */
async function sftCheck(): Promise<void> {
  const config: ModelConfig = {
    vocabSize: 32,
    contextLength: 16,
    dModel: 16,
    nLayers: 1,
    nHeads: 2,
    dFF: 32,
    positions: 'alibi',
  };
  const rng = new Rng(3);
  const examples: SftExample[] = Array.from({ length: 4 }, () => ({
    tokens: Array.from({ length: 12 }, () => rng.int(32)),
    lossMask: Array.from({ length: 12 }, (_, t) => (t >= 4 ? 1 : 0)),
  }));
  setCompileAhead(true); // its compile-only pass must leave the step's values and tensors as they were
  await compare('SFT ×2, tiny model', 1e-5, async () => {
    const policy = createPolicy(config, 1);
    const trainer = new SftTrainer(policy, examples, { batchSize: 2, padMultiple: 1 });
    const losses: number[] = [];
    for (let s = 0; s < 2; s++) losses.push((await trainer.sftStep())['losses/sft']);
    const result: Record<string, tf.Tensor> = { loss: tf.tensor(losses) };
    for (const [name, v] of policy.params) result[name] = v.clone();
    trainer.dispose();
    policy.dispose();
    return result;
  });
}

async function run(): Promise<void> {
  const backend = await startFirst(['webgpu']);
  if (backend.name !== 'webgpu') throw new Error(`no webgpu here: ${backend.fallbackReason ?? backend.label}`);
  state.adapter = backend.label;
  await adamwCheck();
  await layerNormCheck();
  await biasGeluCheck();
  await decodeCheck();
  await seedStackCheck();
  if (new URLSearchParams(location.search).has('sft')) await sftCheck();
}

run().catch((e: unknown) => { state.error = e instanceof Error ? e.stack ?? e.message : String(e); })
  .finally(() => { setFusedKernels(true); setCompileAhead(false); state.done = true; show(); });
