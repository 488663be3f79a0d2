// The model's figures on the current tfjs backend (`cpu` in Node), measured side by side in one run:
//   decode.kv_speedup_512      time to produce a token at 512 tokens of context by recomputing the
//                              whole sequence, over the KV-cache step (target ≥ 5×)
//   train.tokens_per_s.<p>     SFT tokens per second per preset (forward, backward, AdamW)
//   train.flop_fraction.<p>    the training FLOP rate (counted per matmul) over this backend's own
//                              large-matmul FLOP rate: how much of the machine the model uses
//   train.onehot_over_gather.s step time with the embedding as oneHot·matMul over gather (>1: gather wins)
//   train.sft_tokens_per_s.s   SFT tokens per second of preset s on an SFT-like mix: lengths 170–560,
//                              40 % loss targets, batch 8, length-grouped batches (SftTrainer defaults)
//   train.padding_fraction     padded share of the batch tokens over an epoch of that mix, length-grouped
//                              batches (the trainer's default); train.padding_fraction_random: plain
//                              random batches (lengthGroup 0)
// Times are the process's CPU time in Node (see clockMs), so the figures hold on a shared machine.
// Everything is measured on `cpu` (the first keys), then again on `wasm` with keys suffixed `.wasm`;
// then wasm with 1 thread and with every core side by side (wasmThreads.ts: `.wasm.t1`, `.wasm.tN`).
import * as tf from '@tensorflow/tfjs';
import type { BenchSuite, Report } from './harness.ts';
import { createPolicy } from '../src/model/transformer.ts';
import { countParameters, preset, trainingFlopsPerToken, type ModelConfig, type PresetName } from '../src/model/config.ts';
import { SftTrainer, sftEpochOrder, type SftExample } from '../src/rl/sft.ts';
import { Rng } from '../src/env/random.ts';
import { VOCAB } from '../src/agent/vocab.ts';

// tfjs `cpu` runs on this one JS thread, so the process's CPU time is its cost even when other jobs
// share the cores (wall time would mostly measure them); elsewhere (a browser) fall back to wall time,
// and on webgpu too (`bench --backend webgpu` in Node: the GPU's work is not this process's CPU).
const clockMs =
  typeof process !== 'undefined' && process.cpuUsage
    ? () => {
        if (tf.getBackend() === 'webgpu') return performance.now();
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      }
    : () => performance.now();

/** mean ms of `fn` over `reps` calls after one warm-up; fn awaits its own readback */
async function timeMs(fn: () => Promise<void>, reps: number): Promise<number> {
  await fn();
  const t0 = clockMs();
  for (let i = 0; i < reps; i++) await fn();
  return (clockMs() - t0) / reps;
}

async function matmulGflops(n: number, reps: number): Promise<number> {
  const a = tf.randomNormal([n, n], 0, 1, 'float32', 1);
  const b = tf.randomNormal([n, n], 0, 1, 'float32', 2);
  const ms = await timeMs(async () => { const c = tf.matMul(a, b); await c.data(); c.dispose(); }, reps);
  tf.dispose([a, b]);
  return (2 * n ** 3) / (ms * 1e6);
}

async function decodeSpeedup(report: Report, config: ModelConfig, B: number, reps: number): Promise<void> {
  const L = 512;
  const policy = createPolicy(config, 1);
  const rng = new Rng(2);
  const seqs = Array.from({ length: B }, () => Array.from({ length: L }, () => rng.int(config.vocabSize)));
  const cache = policy.newCache(B, L);
  policy.prefill(cache, seqs.map((_, b) => b), seqs.map((s) => s.slice(0, L - reps - 2)));
  // each step appends one token; the last timed one sits at position 511 (capacity stays 512)
  let pos = L - reps - 2;
  const stepMs = await timeMs(async () => {
    const logits = policy.step(cache, seqs.map((s) => s[pos]));
    pos++;
    await logits.data();
    logits.dispose();
  }, reps);
  cache.dispose();
  const full = tf.tensor2d(seqs, [B, L], 'int32');
  const recomputeMs = await timeMs(async () => {
    const logits = tf.tidy(() => policy.nextLogits(full));
    await logits.data();
    logits.dispose();
  }, Math.max(1, Math.floor(reps / 4)));
  full.dispose();
  policy.dispose();
  report('decode.kv_step_ms_512', stepMs, 'ms', `batch ${B}, preset s, per token for the whole batch`);
  report('decode.recompute_ms_512', recomputeMs, 'ms', 'full forward of 512 tokens for the next token');
  report('decode.kv_speedup_512', recomputeMs / stepMs, '×', 'target ≥ 5×');
}

function randomExamples(config: ModelConfig, n: number, T: number, seed: number): SftExample[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => ({
    tokens: Array.from({ length: T }, () => rng.int(config.vocabSize)),
    lossMask: new Array<number>(T).fill(1),
  }));
}

/** ms per SFT step (B sequences of T tokens), after one warm-up step */
async function trainStepMs(config: ModelConfig, B: number, T: number, reps: number): Promise<number> {
  const policy = createPolicy(config, 1);
  const trainer = new SftTrainer(policy, randomExamples(config, B * (reps + 1), T, 3), {
    batchSize: B,
    padMultiple: 1,
  });
  const ms = await timeMs(async () => { await trainer.sftStep(); }, reps);
  trainer.dispose();
  policy.dispose();
  return ms;
}

/** SFT-like sequences: lengths uniform in [170, 560], the last 40 % of each (the policy's part) targets */
function sftLikeExamples(n: number, V: number, seed: number): SftExample[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => {
    const T = rng.between(170, 560);
    const context = Math.round(0.6 * T);
    return {
      tokens: Array.from({ length: T }, () => rng.int(V)),
      lossMask: Array.from({ length: T }, (_, t) => (t >= context ? 1 : 0)),
    };
  });
}

/** padded share of the batch tokens over one epoch of `examples` (N a multiple of B) in sftEpochOrder */
function paddingFraction(examples: readonly SftExample[], B: number, lengthGroup: number, padMultiple: number): number {
  const lengths = examples.map((e) => e.tokens.length);
  const order = sftEpochOrder(lengths, B, lengthGroup, 0, 0);
  let padded = 0;
  for (let i = 0; i + B <= order.length; i += B) {
    padded += B * Math.ceil(Math.max(...order.slice(i, i + B).map((j) => lengths[j])) / padMultiple) * padMultiple;
  }
  return 1 - lengths.reduce((a, b) => a + b, 0) / padded;
}

/** real (unpadded) tokens per second of SFT steps on the SFT-like mix, preset s, after one warm-up step */
async function sftTokensPerS(V: number, B: number, steps: number): Promise<number> {
  const policy = createPolicy(preset('s', V), 1);
  const examples = sftLikeExamples(12 * B, V, 4);
  const trainer = new SftTrainer(policy, examples, { batchSize: B });
  await trainer.sftStep();
  let tokens = 0;
  const t0 = clockMs();
  for (let s = 0; s < steps; s++) {
    const m = await trainer.sftStep();
    tokens += (m['charts/tokens_per_s'] * m['charts/step_time_ms']) / 1000;
  }
  const ms = clockMs() - t0;
  trainer.dispose();
  policy.dispose();
  return (tokens * 1000) / ms;
}

/** every figure on the current backend; `suffix` ('' for cpu, '.wasm', '.webgpu') is appended to each
 *  key. `sftMix: false` skips the SFT-like mix, whose every new batch shape compiles new GPU shaders. */
export async function measureBackend(
  report: Report,
  quick: boolean,
  suffix: string,
  { sftMix = true } = {},
): Promise<void> {
  const r: Report = (key, value, unit, note) => report(key + suffix, value, unit, note);
  const V = VOCAB.size;
  const n = quick ? 256 : 512;
  const matmul = await matmulGflops(n, quick ? 2 : 4);
  r('backend.matmul_gflops', matmul, 'GFLOP/s', `${n}² fp32 matMul on ${tf.getBackend()}`);

  await decodeSpeedup(r, preset('s', V), quick ? 4 : 8, quick ? 4 : 8);

  const [B, T, reps] = quick ? [2, 64, 1] : [4, 128, 2];
  for (const p of ['s', 'm', 'l'] as PresetName[]) {
    const config = preset(p, V);
    const ms = await trainStepMs(config, B, T, reps);
    const tokensPerS = (B * T * 1000) / ms;
    r(`train.step_ms.${p}`, ms, 'ms', `${B}×${T} tokens`);
    r(`train.tokens_per_s.${p}`, tokensPerS, 'tokens/s');
    r(
      `train.flop_fraction.${p}`,
      (trainingFlopsPerToken(config, T) * tokensPerS) / (matmul * 1e9),
      '',
      'training FLOP rate / large-matmul rate',
    );
  }
  if (!sftMix) return;
  // cpu is ~15× slower than wasm here: fewer steps there (each step is a different length mix)
  const sftSteps = tf.getBackend() === 'cpu' ? (quick ? 1 : 2) : quick ? 3 : 8;
  r(
    'train.sft_tokens_per_s.s',
    await sftTokensPerS(V, 8, sftSteps),
    'tokens/s',
    `preset s, batch 8, lengths 170–560, 40 % targets, ${sftSteps} steps`,
  );
  if (tf.getKernel('UnsortedSegmentSum', tf.getBackend())) {
    // gather's gradient; wasm lacks it
    const s = preset('s', V);
    const gather = await trainStepMs({ ...s, embedding: 'gather' }, B, T, reps);
    const onehot = await trainStepMs({ ...s, embedding: 'onehot' }, B, T, reps);
    r('train.onehot_over_gather.s', onehot / gather, '×', 'embedding step-time ratio (> 1: gather is faster)');
  }
}

export const modelSuite: BenchSuite = {
  name: 'model',
  async run(report, { quick }) {
    const before = tf.getBackend();
    const V = VOCAB.size;
    report('model.vocab_size', V, 'tokens');
    for (const p of ['s', 'm', 'l'] as const)
      report(`model.params.${p}`, countParameters(preset(p, V)), 'params', 'context 1024');
    const mix = sftLikeExamples(256, V, 4);
    report(
      'train.padding_fraction',
      paddingFraction(mix, 8, 8, 16),
      '',
      'SFT-like mix (lengths 170–560), batch 8, length-grouped',
    );
    report('train.padding_fraction_random', paddingFraction(mix, 8, 0, 16), '', 'the same in plain random batches');
    // the first figures are on `cpu`; the same figures on `wasm` (the worker's fallback) follow, suffixed
    await tf.setBackend('cpu');
    await measureBackend(report, quick, '');
    try {
      await import('@tensorflow/tfjs-backend-wasm');
      if (await tf.setBackend('wasm')) await measureBackend(report, quick, '.wasm');
    } catch (e) {
      console.log(`  (no wasm figures: ${e instanceof Error ? e.message : String(e)})`);
    }
    // wasm on 1 thread and on every core, each in its own process (wall time; wasmThreads.ts)
    // imported here, not at the top: it spawns Node processes, and the browser bench page imports this file
    const { measureWasmThreads } = await import('./wasmThreads.ts');
    await measureWasmThreads(report, quick);
    if (before) await tf.setBackend(before);
  },
};
