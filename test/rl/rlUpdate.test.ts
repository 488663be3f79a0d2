// The PPO update over token-budgeted micro-batches: the gradient each mini-batch's AdamW step
// receives, summed over micro-batches, equals the unsplit one within float tolerance, and so do the step's
// metrics (on synthetic rows, and on a real step's rollouts); nothing leaks; a micro-batch planned past the
// wasm heap fails before any weight moves.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { createPolicy, type Policy } from '../../src/model/transformer.ts';
import { preset, trainingBytes } from '../../src/model/config.ts';
import { VOCAB } from '../../src/agent/vocab.ts';
import { Rng } from '../../src/env/random.ts';
import { rlConfigFor, type RlConfig } from '../../src/rl/rlConfig.ts';
import { microBatchBudget, ppoUpdate, WASM_TRAINING_HEAP, type UpdateContext, type UpdateRow } from '../../src/rl/rlUpdate.ts';
import { microBatches } from '../../src/rl/rlMath.ts';
import type { AdamW } from '../../src/rl/optimizer.ts';
import { readCheckpointDir } from '../../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../../src/rl/loadPolicy.ts';
import { rlEnvironment } from '../../src/rl/rlEnvironment.ts';
import { RlTrainer } from '../../src/rl/rlTrainer.ts';
import { setTrainingAttentionKernel } from '../../src/model/ops.ts';
// What these runs were measured with before the page's settings table gave the trainer its defaults (the page's:
// temperature 0.7, constrained plans, 100 validation queries, no sampled evaluation): kept, so the figures stay comparable.
const MEASURED_WITH: Partial<RlConfig> = { temperature: 1, planDecoding: 'free', evalQueries: 40, evalSamples: 4 };

/** rows of `groups` groups of 4: prompt, then policy tokens and observations; group 1 has all-zero advantages */
function rows(groups: number, seed: number, maxLen = 90): UpdateRow[] {
  const rng = new Rng(seed);
  const out: UpdateRow[] = [];
  for (let g = 0; g < groups; g++) {
    const adv = g === 1 ? [0, 0, 0, 0] : [0.9, -0.4, 1.2, -1.7];
    for (let k = 0; k < 4; k++) {
      const n = 12 + rng.int(maxLen - 12);
      const tokens = Array.from({ length: n }, () => 1 + rng.int(VOCAB.size - 1));
      const lossMask = tokens.map((_, t) => (t >= 6 && t % 7 !== 3 ? 1 : 0)); // prompt 0–5, an "observation" every 7th token
      const logProbs = lossMask.map((m, t) => (m ? -2.5 + 2 * Math.sin(t + 3 * k + g) : 0)); // ratios from clipped to not
      const bans = t0Bans(lossMask, rng);
      out.push({ episode: { tokens, lossMask, logProbs, bans }, group: g, advantage: adv[k] });
    }
  }
  return out;
}

/** a few constrained-decoding bans on policy tokens (ids other than the sampled one) */
function t0Bans(mask: number[], rng: Rng): { index: number; ids: number[] }[] {
  return mask.flatMap((m, index) => (m && index % 5 === 0 ? [{ index, ids: [1 + rng.int(8), 20 + rng.int(8)] }] : []));
}

/** runs ppoUpdate with an optimizer that records the (clipped-scale) gradients it is handed, and moves nothing */
async function recordUpdate(policy: Policy, reference: Policy | null, config: RlConfig, data: UpdateRow[]) {
  const steps: Record<string, Float32Array>[] = [];
  const recorder = {
    apply(grads: Record<string, tf.Tensor>, _lr: number, scale?: tf.Scalar) {
      const s = scale ? scale.dataSync()[0] : 1;
      steps.push(Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, (g.dataSync() as Float32Array).map((x) => x * s)])));
    },
  };
  const ctx: UpdateContext = { policy, reference, optimizer: recorder as unknown as AdamW, config, step: 0 };
  const metrics = await ppoUpdate(ctx, data, null);
  return { steps, metrics };
}

const TINY = { ...preset('s', VOCAB.size, 128), dModel: 32, nLayers: 2, nHeads: 2, dFF: 64 };

describe('ppoUpdate: micro-batches accumulate the mini-batch gradient', () => {
  it.each([
    ['cpu', 'seq-mean-token-mean', 0.01, 40, 100],
    ['wasm', 'token-mean', 0.01, 90, 200],
    ['wasm', 'seq-mean-token-mean', 0, 90, 200],
  ] as const)('%s, %s, klCoef %s: the same gradients and metrics as whole mini-batches', async (backend, lossAggregation, klCoef, maxLen, budget) => {
    await tf.setBackend(backend);
    const policy = createPolicy(TINY, 11);
    const reference = klCoef > 0 ? createPolicy(TINY, 12) : null;
    const data = rows(3, 7, maxLen);
    const base = { miniBatches: 2, lossAggregation, klCoef, maxGradNorm: 1e9, temperature: 0.8 };
    const before = tf.memory().numTensors;
    try {
      const whole = await recordUpdate(policy, reference, rlConfigFor('grpo', { ...MEASURED_WITH, ...base, microBatchTokens: 0 }), data);
      const split = await recordUpdate(policy, reference, rlConfigFor('grpo', { ...MEASURED_WITH, ...base, microBatchTokens: budget }), data);
      expect(tf.memory().numTensors).toBe(before); // no leak on either path
      expect(whole.metrics['charts/microbatches']).toBe(whole.metrics['charts/minibatches']);
      expect(split.metrics['charts/microbatches']).toBeGreaterThanOrEqual(2 * split.metrics['charts/minibatches']);
      expect(split.steps.length).toBe(whole.steps.length);
      expect(whole.steps.length).toBe(2); // groups 0 | 1–2 (0 | 2 without a KL term: the zero group 1 is left out)
      for (const [s, step] of whole.steps.entries()) {
        for (const [name, g] of Object.entries(step)) {
          const h = split.steps[s][name];
          const scale = Math.max(...g.map(Math.abs)) + 1e-12;
          const worst = Math.max(...Array.from(g, (x, i) => Math.abs(x - h[i])));
          expect(worst / scale, `${name}, step ${s}`).toBeLessThan(1e-4);
        }
      }
      for (const k of ['losses/pg', 'losses/kl', 'losses/clip_frac', 'losses/dual_clip_frac', 'losses/entropy', 'losses/ratio_dev', 'charts/grad_norm']) {
        expect(split.metrics[k], k).toBeCloseTo(whole.metrics[k], 5);
      }
      expect(whole.metrics['losses/clip_frac']).toBeGreaterThan(0); // the rows exercise the clip
    } finally {
      policy.dispose();
      reference?.dispose();
    }
  });

  it('the zero-advantage group is left out without a KL term (no backward on rows that carry nothing)', async () => {
    await tf.setBackend('wasm');
    const policy = createPolicy(TINY, 11);
    try {
      const data = rows(4, 7);
      const withKl = await recordUpdate(policy, policy, rlConfigFor('grpo', { ...MEASURED_WITH, klCoef: 0.01, miniBatches: 1 }), data);
      const without = await recordUpdate(policy, null, rlConfigFor('grpo', { ...MEASURED_WITH, klCoef: 0, miniBatches: 1 }), data);
      expect(withKl.metrics['charts/zero_adv_share']).toBeGreaterThan(0);
      expect(without.metrics['charts/zero_adv_share']).toBe(0);
    } finally {
      policy.dispose();
    }
  });
});

describe('ppoUpdate on real rollouts (shipped s checkpoint)', () => {
  it('micro-batches and the fused attention kernel give the old path\'s gradients and step metrics on the same rollouts', async () => {
    await tf.setBackend('wasm');
    const ckpt = await readCheckpointDir('public/checkpoints/s-tiny');
    const env = rlEnvironment({ world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength }, { trainSize: 200, mix: [4, 3, 3] });
    const config = rlConfigFor('grpo', { ...MEASURED_WITH, queriesPerStep: 2, groupSize: 4, steps: 2, seed: 5, klCoef: 0.001, miniBatches: 1 });
    const policy = policyFromCheckpoint(ckpt);
    const reference = policyFromCheckpoint(ckpt);
    const t = new RlTrainer(policy, null, env, { ...config, klCoef: 0 });
    try {
      await t.trainStep(); // real rollouts, scored, with advantages
      const data = t.lastEpisodes.map((e) => ({ ...e, advantage: e.advantage || 0.5 })); // every row with signal
      setTrainingAttentionKernel(false); // the older path: whole mini-batches, the per-head plain attention ops
      const whole = await recordUpdate(policy, reference, { ...config, microBatchTokens: 0 }, data).finally(() => setTrainingAttentionKernel(true));
      const split = await recordUpdate(policy, reference, { ...config, microBatchTokens: 512 }, data);
      expect(split.metrics['charts/microbatches']).toBeGreaterThan(1);
      for (const k of ['losses/pg', 'losses/kl', 'losses/clip_frac', 'losses/entropy', 'losses/ratio_dev', 'charts/grad_norm']) expect(split.metrics[k], k).toBeCloseTo(whole.metrics[k], 5);
      for (const [name, g] of Object.entries(whole.steps[0])) {
        const scale = Math.max(...g.map(Math.abs)) + 1e-12;
        expect(Math.max(...Array.from(g, (x, i) => Math.abs(x - split.steps[0][name][i]))) / scale, name).toBeLessThan(1e-4);
      }
    } finally {
      t.dispose();
      policy.dispose();
      reference.dispose();
    }
  }, 300_000);
});

describe('ppoUpdate: memory', () => {
  it('scale l, 16 rows of 576 tokens unsplit: fails naming memory before any weight moves; the default budget plans within the heap', async () => {
    await tf.setBackend('wasm');
    const policy = createPolicy(preset('l', VOCAB.size, 576), 1);
    let applied = 0;
    const ctx = (microBatchTokens: number): UpdateContext => ({ policy, reference: null, step: 3,
      optimizer: { apply: () => { applied++; } } as unknown as AdamW, config: rlConfigFor('grpo', { ...MEASURED_WITH, klCoef: 0, miniBatches: 2, microBatchTokens }) });
    const data = rows(8, 3, 576).map((r) => ({ ...r, episode: { ...r.episode, tokens: [...r.episode.tokens, ...new Array(570 - r.episode.tokens.length).fill(5)],
      lossMask: [...r.episode.lossMask, ...new Array(570 - r.episode.lossMask.length).fill(0)], logProbs: [...r.episode.logProbs, ...new Array(570 - r.episode.logProbs.length).fill(0)] } }));
    const w0 = policy.params.get('h0.attn.w_qkv')!.dataSync().slice();
    try {
      await expect(ppoUpdate(ctx(0), data, null)).rejects.toThrow(/out of memory.*16 rows × 576 tokens.*weights unchanged.*microBatchTokens/);
      expect(applied).toBe(0);
      expect(policy.params.get('h0.attn.w_qkv')!.dataSync()).toEqual(w0);
      // the default budget: 3 rows of 576 a micro-batch, within the heap
      const budget = rlConfigFor('grpo').microBatchTokens;
      expect(trainingBytes(policy.config, Math.floor(budget / 576) * 576, 576)).toBeLessThan(WASM_TRAINING_HEAP);
    } finally {
      policy.dispose();
    }
  });
});

describe('ppoUpdate: non-finite input', () => {
  it.each([
    ['an old log-prob', (d: UpdateRow[]) => { d[1].episode.logProbs = d[1].episode.logProbs.map((lp, t) => (t === 9 ? Number.NaN : lp)); }],
    ['an advantage', (d: UpdateRow[]) => { d[2].advantage = Number.POSITIVE_INFINITY; }],
  ] as const)('%s that is not finite fails naming the row before any weight moves, leaking nothing', async (_, corrupt) => {
    await tf.setBackend('wasm');
    const policy = createPolicy(TINY, 1);
    let applied = 0;
    const ctx: UpdateContext = { policy, reference: null, step: 7,
      optimizer: { apply: () => { applied++; } } as unknown as AdamW, config: rlConfigFor('grpo', { ...MEASURED_WITH, klCoef: 0, miniBatches: 1, microBatchTokens: 256 }) };
    const data = rows(2, 5);
    corrupt(data); // without the check a NaN old log-prob is clamped in the loss into a full-size push, not a NaN loss
    const w0 = policy.params.get('h0.attn.w_qkv')!.dataSync().slice();
    const before = tf.memory().numTensors;
    try {
      await expect(ppoUpdate(ctx, data, null)).rejects.toThrow(/^RL step 7: rollout row [12] \(group 0\) has a non-finite old log-prob or advantage at token \d+ — stopping before the update \(weights unchanged\)/);
      expect(applied).toBe(0);
      expect(policy.params.get('h0.attn.w_qkv')!.dataSync()).toEqual(w0);
      expect(tf.memory().numTensors).toBe(before);
    } finally {
      policy.dispose();
    }
  });
});

describe('the micro-batch budget by backend', () => {
  it('webgpu packs 8× the tokens (fewer, larger micro-batches); cpu and wasm keep the setting; 0 stays whole', () => {
    expect(microBatchBudget(2048, 'webgpu')).toBe(16384);
    expect(microBatchBudget(2048, 'wasm')).toBe(2048);
    expect(microBatchBudget(2048, 'cpu')).toBe(2048);
    expect(microBatchBudget(0, 'webgpu')).toBe(0);
    // a mini-batch of 16 rows padded to 448 tokens: 4 micro-batches of 4 rows on a CPU, one of all 16 on webgpu
    const padded = new Array<number>(16).fill(448);
    expect(microBatches(padded, microBatchBudget(2048, 'wasm')).map((m) => m.length)).toEqual([4, 4, 4, 4]);
    expect(microBatches(padded, microBatchBudget(2048, 'webgpu')).map((m) => m.length)).toEqual([16]);
    // m's default mini-batch, 16 rollouts padded to 576: one micro-batch on webgpu (2 at the former 4×)
    expect(microBatches(new Array<number>(16).fill(576), microBatchBudget(2048, 'webgpu')).map((m) => m.length)).toEqual([16]);
  });
});
