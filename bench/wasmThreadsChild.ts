// One process of the wasm-threads bench (wasmThreads.ts): starts `wasm` with the threads given
// (1: the plain SIMD build; more: the threaded SIMD build), times SFT steps of s/m/l and a batch-64
// decode step, and prints one line `RESULT {json}`. Wall time: the threads' work is the point, and
// CPU time would count it once per thread. Usage: tsx bench/wasmThreadsChild.ts THREADS [--quick]
import * as tf from '@tensorflow/tfjs';
import { useNodeBackend } from '../src/node/nodeBackend.ts';
import { createPolicy } from '../src/model/transformer.ts';
import { preset, type ModelConfig, type PresetName } from '../src/model/config.ts';
import { SftTrainer, type SftExample } from '../src/rl/sft.ts';
import { Rng } from '../src/env/random.ts';
import { VOCAB } from '../src/agent/vocab.ts';

export interface ThreadsResult {
  threads: number;
  /** ms per SFT step (B×T tokens) per preset, min over the reps */
  trainMs: Record<string, number>;
  /** ms per decode step at batch 64 and ~200 tokens of context per preset, min over the reps */
  decodeMs: Record<string, number>;
  /** the first step's loss per preset (the same on every thread count if the kernels agree) */
  loss: Record<string, number>;
  /** process CPU seconds over wall seconds while timing (≈ threads when they all had a core) */
  cpuPerWall: number;
}

function examples(config: ModelConfig, n: number, T: number): SftExample[] {
  const rng = new Rng(3);
  return Array.from({ length: n }, () => ({
    tokens: Array.from({ length: T }, () => rng.int(config.vocabSize)),
    lossMask: new Array<number>(T).fill(1),
  }));
}

async function minMs(fn: () => Promise<void>, reps: number): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

async function main(): Promise<void> {
  const threads = Number(process.argv[2]);
  const quick = process.argv.includes('--quick');
  const actual = await useNodeBackend('wasm', threads);
  const V = VOCAB.size;
  const [B, T, reps] = quick ? [2, 64, 2] : [4, 128, 2]; // the shapes of train.tokens_per_s.<p>.wasm
  const [decodeB, context, steps] = quick ? [16, 64, 3] : [64, 200, 4];
  const out: ThreadsResult = { threads: actual, trainMs: {}, decodeMs: {}, loss: {}, cpuPerWall: 0 };
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (const p of ['s', 'm', 'l'] as PresetName[]) {
    const config = preset(p, V);
    const policy = createPolicy(config, 1);
    const trainer = new SftTrainer(policy, examples(config, B * (reps + 1), T), { batchSize: B, padMultiple: 1 });
    out.loss[p] = (await trainer.sftStep())['losses/sft']; // also the warm-up
    out.trainMs[p] = await minMs(async () => { await trainer.sftStep(); }, reps);
    trainer.dispose();

    const rng = new Rng(2);
    const seqs = Array.from({ length: decodeB }, () => Array.from({ length: context + steps + 1 }, () => rng.int(V)));
    const cache = policy.newCache(decodeB, context + steps + 2);
    policy.prefill(cache, seqs.map((_, b) => b), seqs.map((s) => s.slice(0, context)));
    let pos = context;
    const step = async () => {
      const logits = policy.step(cache, seqs.map((s) => s[pos]));
      pos++;
      await logits.data();
      logits.dispose();
    };
    await step(); // warm-up
    out.decodeMs[p] = await minMs(step, steps);
    cache.dispose();
    policy.dispose();
  }
  const cpu = process.cpuUsage(cpu0);
  out.cpuPerWall = (cpu.user + cpu.system) / 1000 / (performance.now() - wall0);
  if (tf.memory().numTensors > 0) console.error(`(${tf.memory().numTensors} tensors left)`);
  console.log(`RESULT ${JSON.stringify(out)}`);
}

await main();
process.exit(0);
