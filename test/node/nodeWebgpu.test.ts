// The CLI's `webgpu` backend (Dawn's Node bindings, src/node/nodeWebgpu.ts) computes what `wasm` computes:
// the shipped s checkpoint's forward logits, a KV-cache prefill and decode step (the rollouts' path, with
// the fused decode attention) and one SFT step (loss, gradient norm, the weights after AdamW: the update's
// path, with the fused LayerNorm, bias+GELU and AdamW kernels), to the tolerance of the fused-kernel checks
// (bench/browser/kernelCheck.ts: max |a − b| / (1 + |b|) ≤ 1e-5). The rest of a run is the same code on
// either backend. Without a GPU this runs on Chromium's SwiftShader, where every new shader compiles on
// the CPU: the shapes are tiny (2 rows of 16 tokens) and it takes ~20 s. No adapter at all is a failure,
// not a skip (STAR_WEBGPU_TEST=skip skips it, loudly), so CI cannot pass without having run it.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { useNodeBackend, type NodeBackend } from '../../src/node/nodeBackend.ts';
import { nodeWebgpuAdapter } from '../../src/node/nodeWebgpu.ts';
import { readCheckpointDir } from '../../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';
import { SftTrainer } from '../../src/rl/sft.ts';
import { Rng } from '../../src/env/random.ts';

const TOLERANCE = 1e-5; // the fused-kernel checks' (bench/browser/kernelCheck.ts)
const skip = process.env.STAR_WEBGPU_TEST === 'skip';
if (skip) console.warn('\n!!! STAR_WEBGPU_TEST=skip: the Node webgpu backend is NOT tested in this run !!!\n');

/** max |a − b| / (1 + |b|) over every element, as the kernel checks measure it */
function maxErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let e = 0;
  for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i])));
  return Number.isNaN(e) ? Infinity : e;
}

/** the figures compared, each a flat array */
async function figures(backend: NodeBackend): Promise<Record<string, number[]>> {
  await useNodeBackend(backend);
  const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
  const policy = policyFromCheckpoint(ckpt);
  const V = policy.config.vocabSize;
  const rng = new Rng(3);
  const out: Record<string, number[]> = {};
  try {
    const tokens = tf.tensor2d(Array.from({ length: 2 * 16 }, () => rng.int(V)), [2, 16], 'int32'); // [B=2, T=16]
    const logits = policy.forward(tokens); // [2, 16, V]
    out.forwardLogits = Array.from(await logits.data());
    tf.dispose([tokens, logits]);

    const cache = policy.newCache(2, 64);
    policy.prefill(cache, [0, 1], [20, 13].map((n) => Array.from({ length: n }, () => rng.int(V))));
    const step = policy.step(cache, [1, 2]); // [2, V]
    out.decodeLogits = Array.from(await step.data());
    step.dispose();
    cache.dispose();

    const examples = [0, 1].map(() => ({ tokens: Array.from({ length: 16 }, () => rng.int(V)), lossMask: Array.from({ length: 16 }, (_, t) => (t >= 4 ? 1 : 0)) }));
    const trainer = new SftTrainer(policy, examples, { batchSize: 2, padMultiple: 16 });
    const m = await trainer.sftStep();
    out.sftLoss = [m['losses/sft']];
    out.gradNorm = [m['charts/grad_norm']];
    for (const name of ['h0.attn.w_qkv', 'h3.mlp.w_fc', 'h3.ln2.g']) out[`after SFT step: ${name}`] = Array.from(await policy.params.get(name)!.data());
    trainer.dispose();
  } finally {
    policy.dispose();
  }
  return out;
}

describe.skipIf(skip)("the CLI's webgpu backend (Dawn in Node)", () => {
  it('agrees with wasm on the s checkpoint: forward, decode step, SFT step', async () => {
    const wasm = await figures('wasm');
    const t0 = performance.now();
    const webgpu = await figures('webgpu');
    const adapter = nodeWebgpuAdapter();
    console.log(`webgpu figures in ${((performance.now() - t0) / 1000).toFixed(1)} s on ${adapter?.description} (fallback: ${adapter?.isFallbackAdapter})`);
    expect(Object.keys(webgpu)).toEqual(Object.keys(wasm));
    const errors = Object.fromEntries(Object.keys(wasm).map((k) => [k, maxErr(webgpu[k], wasm[k])]));
    console.log(errors);
    for (const [k, e] of Object.entries(errors)) expect(e, k).toBeLessThanOrEqual(TOLERANCE);
    expect(wasm.sftLoss[0]).toBeGreaterThan(0); // a real loss, not two empty results agreeing
  }, 120_000);
});
