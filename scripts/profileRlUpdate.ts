// Where an RL update's time goes on wasm: one ppoUpdate of 32 synthetic rows × T tokens at scale s
// (bench/rlUpdate.ts's shape: 2 mini-batches, reference included, default micro-batch budget), CPU seconds,
// with the training attention's fused wasm kernel off (the per-head plain ops) and on; then the attention
// alone (causalAttention forward + backward at one micro-batch's shape, as often as one update runs it);
// with `profile`, the plain path's update under tf.profile, kernel time by leaf kernel and input shapes
// (tf.profile's own overhead inflates every kernel: shares, not seconds).
//   nice -n 10 npx tsx scripts/profileRlUpdate.ts [T=448] [profile]
import * as tf from '@tensorflow/tfjs';
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import { readCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { rlConfigFor, type RlConfig } from '../src/rl/rlConfig.ts';
import { ppoUpdate, type UpdateRow } from '../src/rl/rlUpdate.ts';
import { AdamW } from '../src/rl/optimizer.ts';
import { Rng } from '../src/env/random.ts';
import { VOCAB } from '../src/agent/vocab.ts';
import { alibiSlopes } from '../src/model/config.ts';
import { cpuSeconds } from '../bench/harness.ts';
import { causalAttention, setTrainingAttentionKernel } from '../src/model/ops.ts';
// What these runs were measured with before the page's settings table gave the trainer its defaults (the page's:
// temperature 0.7, constrained plans, 100 validation queries, no sampled evaluation): kept, so the figures stay
// comparable.
const MEASURED_WITH: Partial<RlConfig> = { temperature: 1, constrainPlan: false, evalQueries: 40, evalSamples: 4 };

await useNodeBackend('wasm', 1);
const T = Number(process.argv[2] ?? 448);
const rng = new Rng(5);
const rows: UpdateRow[] = Array.from({ length: 32 }, (_, i) => {
  const tokens = Array.from({ length: T }, () => 1 + rng.int(VOCAB.size - 1));
  const lossMask = tokens.map((_, t) => (t >= 0.4 * T && t % 9 !== 0 ? 1 : 0));
  const logProbs = lossMask.map((m) => (m ? -0.5 - rng.next() : 0));
  return {
    episode: { tokens, lossMask, logProbs, bans: [] },
    group: Math.floor(i / 8),
    advantage: [1, -1, 0.5, -0.5][i % 4],
  };
});
const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
const config = rlConfigFor('grpo', { ...MEASURED_WITH, klCoef: 0.001, miniBatches: 2 });
const { nHeads: H, dModel, nLayers } = ckpt.config;

async function update(fused: boolean): Promise<number> {
  setTrainingAttentionKernel(fused);
  const policy = policyFromCheckpoint(ckpt);
  const reference = policyFromCheckpoint(ckpt);
  const optimizer = new AdamW(policy.params, { beta1: 0.9, beta2: 0.999, weightDecay: 0.01 });
  const c0 = cpuSeconds();
  const m = await ppoUpdate({ policy, reference, optimizer, config, step: 0 }, rows, null);
  const s = cpuSeconds() - c0;
  console.log(
    `update, fused attention ${fused ? 'on ' : 'off'}: ${s.toFixed(2)} s CPU (pg ${m['losses/pg']}, kl ${m['losses/kl']}, clip ${m['losses/clip_frac']}, ` +
      `entropy ${m['losses/entropy']}, grad norm ${m['charts/grad_norm']}, micro-batches ${m['charts/microbatches']})`,
  );
  optimizer.dispose(); policy.dispose(); reference.dispose();
  return s;
}

/** causalAttention at one micro-batch's shape: `calls` forward + backward (the policy's) and as many forwards (the
 * reference's) */
function attention(fused: boolean, B: number, calls: number): number {
  setTrainingAttentionKernel(fused);
  const hd = dModel / H;
  const heads = tf.randomNormal([B, 3 * H, T, hd], 0, 1, 'float32', 1) as tf.Tensor4D;
  const bias = tf.tidy(() => {
    const causal = tf.linalg.bandPart(tf.ones([T, T]), -1, 0);
    const dist = tf.range(0, T).reshape([T, 1]).sub(tf.range(0, T).reshape([1, T])).mul(causal);
    return alibiSlopes(H).map((m) => tf.sub(1, causal).mul(-1e9).sub(dist.mul(m)) as tf.Tensor2D);
  });
  const grad = tf.grad((x: tf.Tensor) => causalAttention(x as tf.Tensor4D, H, bias, 1 / Math.sqrt(hd)).sum());
  tf.dispose(grad(heads)); // warm-up
  const c0 = cpuSeconds();
  for (let c = 0; c < calls; c++) {
    tf.dispose(grad(heads));
    tf.dispose(tf.tidy(() => causalAttention(heads, H, bias, 1 / Math.sqrt(hd))));
  }
  const s = cpuSeconds() - c0;
  tf.dispose([heads, ...bias]);
  return s;
}

await update(true); // untimed: grows the heap
const off = await update(false);
const on = await update(true);
// the update's micro-batches: rows per micro-batch under the token budget, one attention call per layer each;
// timed over `sample` of them (the machine is shared: fewer CPU seconds), scaled to the update's count
const perMicro = Math.max(1, Math.floor(config.microBatchTokens / T));
const calls = (rows.length / perMicro) * nLayers;
const sample = Math.min(calls, Number(process.env.STAR_PROFILE_CALLS ?? 4));
const [aOff, aOn] = [
  (attention(false, perMicro, sample) * calls) / sample,
  (attention(true, perMicro, sample) * calls) / sample,
];
console.log(
  `attention alone (${calls} × forward + backward and ${calls} × forward, timed over ${sample} and scaled; B=${perMicro} H=${H} T=${T} hd=${dModel / H}): ` +
    `plain ${aOff.toFixed(2)} s (${((100 * aOff) / off).toFixed(0)} % of the plain update), fused ${aOn.toFixed(2)} s; update ${off.toFixed(2)} → ${on.toFixed(2)} s (${(off / on).toFixed(2)}×)`,
);

if (process.argv.includes('profile')) {
  setTrainingAttentionKernel(false);
  const prof = await tf.profile(() => update(false));
  const scopes = new Set(['unnamed scope', 'forward']); // customGrad's scopes: their time includes their kernels'
  const byName = new Map<string, { ms: number; n: number }>();
  for (const k of prof.kernels) {
    if (scopes.has(k.name)) continue;
    const key = `${k.name} ${k.inputShapes.map((s) => `[${s}]`).join('')}`;
    const e = byName.get(key) ?? { ms: 0, n: 0 };
    e.ms += k.kernelTimeMs as number; e.n++;
    byName.set(key, e);
  }
  const total = [...byName.values()].reduce((s, e) => s + e.ms, 0);
  const attn = [...byName]
    .filter(([k]) => k.includes(`[${T},${T}]`) || k.includes(`[${T},1][1,${T}]`))
    .reduce((s, [, e]) => s + e.ms, 0);
  console.log(
    `leaf kernels under tf.profile: ${prof.kernels.length}; those with a [T, T] operand (the attention's): ${((100 * attn) / total).toFixed(1)} % of leaf kernel time`,
  );
  for (const [k, e] of [...byName].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25))
    console.log(`  ${((100 * e.ms) / total).toFixed(1)} %  ×${e.n}  ${k}`);
}
