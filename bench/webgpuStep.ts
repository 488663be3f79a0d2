// The default RL step's GPU dispatches at preset m on webgpu (Dawn in this Node process: a GPU if its Vulkan
// driver is found, else SwiftShader; the counts are the same on either, they depend on the path, not the
// adapter). A GPU's step at these sizes is paced by host work per dispatch (~150 µs each on an H200), so the
// count is the figure the fused kernels cut. Measured here per call, on small shapes, in seconds:
//   webgpu_step.dispatches.prefill | decode_step | sampling   one call each (the second of two: compiled)
//   webgpu_step.dispatches.update_1 | update_2   a PPO update of one mini-batch in one and in two micro-batches
//   webgpu_step.dispatches.repack                what the first decode step after new weights adds
//   webgpu_step.dispatches.rl_step.m             the default step, assembled: those times the calls of the step
//       measured whole (STEP_FIGURES, `gpu-check --run --count-dispatches`: on SwiftShader 20 min idle, too long
//       for a bench; a few calls may differ, as the rollouts sample the same tokens only up to float rounding)
import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchSuite } from './harness.ts';
import { useNodeBackend, type NodeBackend } from '../src/node/nodeBackend.ts';
import { readCheckpointDir, shippedCheckpointDir } from '../src/node/checkpointDir.ts';
import { policyFromCheckpoint } from '../src/rl/loadPolicy.ts';
import { microBatchBudget, ppoUpdate, type UpdateRow } from '../src/rl/rlUpdate.ts';
import { AdamW } from '../src/rl/optimizer.ts';
import { rlConfigFor } from '../src/rl/rlConfig.ts';
import { sampleTokens } from '../src/model/sampling.ts';
import { Rng } from '../src/env/random.ts';

/** the default step at m measured whole on webgpu (before the one-dispatch layer): its calls (prefills, decode steps,
 *  micro-batches, optimizer steps) and the dispatches of its cache compactions, which depend on the rollouts, not on
 *  a call's path */
export const STEP_FIGURES = 'results/gpu/2026-12-05-counts/webgpu-m-step/figures.json';

interface StepCalls { prefillCalls: number; decodeCalls: number; optimizerCalls: number; microBatches: number;
  rolloutOther: number }

/** the calls of the step measured whole; its micro-batches as today's webgpu budget plans them where that budget
 *  holds a whole mini-batch at any length (rows × context tokens): one a mini-batch */
function stepCalls(contextLength: number): StepCalls & { wholeMiniBatches: boolean } {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const f = JSON.parse(readFileSync(`${root}${STEP_FIGURES}`, 'utf8')) as { scales: { m: {
    setup: { queriesPerStep: number; groupSize: number; miniBatches: number; microBatchTokens: number };
    webgpu: { firstStep: { microBatches: number; phases: Omit<StepCalls, 'microBatches'> } } } } };
  const { setup, webgpu: { firstStep: step } } = f.scales.m;
  const rows = (setup.queriesPerStep * setup.groupSize) / setup.miniBatches;
  const wholeMiniBatches = microBatchBudget(setup.microBatchTokens, 'webgpu') >= rows * contextLength;
  return {
    ...step.phases,
    microBatches: wholeMiniBatches ? step.phases.optimizerCalls : step.microBatches,
    wholeMiniBatches,
  };
}

export const webgpuStepSuite: BenchSuite = {
  name: 'webgpu-step',
  async run(report) {
    const previous = tf.getBackend() as NodeBackend | undefined;
    try {
      await useNodeBackend('webgpu');
    } catch (e) {
      console.log(`  (no webgpu step figures: ${(e as Error).message})`);
      return;
    }
    // every compute dispatch on Dawn's objects, the lab's raw ones included (as the GPU check counts them)
    const pass = (globalThis as unknown as { GPUComputePassEncoder: { prototype: Record<string, unknown> } })
      .GPUComputePassEncoder.prototype;
    const dispatchWorkgroups = pass.dispatchWorkgroups as (...a: unknown[]) => unknown;
    let dispatches = 0;
    pass.dispatchWorkgroups = function (this: unknown, ...a: unknown[]) {
      dispatches++;
      return dispatchWorkgroups.apply(this, a);
    };
    const ckpt = await readCheckpointDir(shippedCheckpointDir('m'));
    const policy = policyFromCheckpoint(ckpt);
    const reference = policyFromCheckpoint(ckpt);
    const optimizer = new AdamW(policy.params, { weightDecay: 0 });
    const cache = policy.newCache(4, 64);
    const counts: Record<string, number> = {};
    let leak = 0; // tensors a counted call left behind, the most of any
    /** dispatches of `f`'s second call (the first compiles its shaders) */
    const count = async (name: string, f: () => unknown, rounds = 2) => {
      for (let round = 0; round < rounds; round++) {
        dispatches = 0;
        const before = tf.memory().numTensors;
        const out = f();
        if (out instanceof tf.Tensor) {
          await out.data();
          out.dispose();
        } else await out;
        counts[name] = dispatches;
        if (round === rounds - 1) leak = Math.max(leak, tf.memory().numTensors - before);
      }
    };
    try {
      await count('prefill', () => policy.prefill(cache, [0, 1, 2, 3], [[1, 2, 3], [4, 5], [6], [7, 8, 9]]));
      await count('decode_step', () => policy.step(cache, [1, 2, 3, 4]));
      const logits = policy.step(cache, [5, 6, 7, 8]);
      await count('sampling', () => sampleTokens(logits, 1, new Rng(1), false));
      logits.dispose();
      const rows: UpdateRow[] = [0, 1].map((g) => ({
        group: g,
        advantage: g ? 1 : -1,
        episode: {
          tokens: Array.from({ length: 12 }, (_, t) => 5 + t),
          lossMask: Array.from({ length: 12 }, (_, t) => (t > 4 ? 1 : 0)),
          logProbs: new Array<number>(12).fill(-1),
          bans: [],
        },
      }));
      // the lab's GRPO (its KL term: a reference pass a micro-batch); a budget of 1 token puts each row in its
      // own micro-batch, so update_2 − update_1 is one micro-batch's forward and backward
      for (const [name, microBatchTokens] of [['update_1', 2048], ['update_2', 1]] as const) {
        const config = rlConfigFor('grpo', { miniBatches: 1, microBatchTokens });
        await count(name, () => ppoUpdate({ policy, reference, optimizer, config, step: 5 }, rows, null));
      }
      // the weights moved: the next decode step packs them anew for the fused layer, once
      await count('decode_after_update', () => policy.step(cache, [1, 2, 3, 4]), 1);
      const repack = counts.decode_after_update - counts.decode_step;
      const calls = stepCalls(policy.config.contextLength);
      const microBatch = counts.update_2 - counts.update_1;
      const step =
        calls.prefillCalls * counts.prefill +
        calls.decodeCalls * (counts.decode_step + counts.sampling) +
        (calls.rolloutOther - calls.decodeCalls * counts.sampling) + // the cache's compactions and growth, as measured
        repack + // the step's first prefill packs the weights the last step's updates left
        calls.optimizerCalls * counts.update_1 +
        (calls.microBatches - calls.optimizerCalls) * microBatch;
      const per = 'dispatches a call at m, fused kernels';
      report('webgpu_step.dispatches.prefill', counts.prefill, 'dispatches', `${per}: a prefill of 4 rows`);
      report('webgpu_step.dispatches.decode_step', counts.decode_step, 'dispatches', `${per}: policy.step`);
      report('webgpu_step.dispatches.sampling', counts.sampling, 'dispatches', `${per}: a decode step's sampling`);
      report(
        'webgpu_step.dispatches.update_1',
        counts.update_1,
        'dispatches',
        `${per}: a mini-batch's PPO update, 1 micro-batch`,
      );
      report('webgpu_step.dispatches.micro_batch', microBatch, 'dispatches', `${per}: one more micro-batch`);
      report(
        'webgpu_step.dispatches.repack',
        repack,
        'dispatches',
        'packing the new weights for the decode layer, once a step',
      );
      report(
        'webgpu_step.dispatches.rl_step.m',
        step,
        'dispatches',
        `the default step at m, assembled from these and its calls measured whole (${calls.prefillCalls} prefills, ` +
          `${calls.decodeCalls} decode steps, ${calls.microBatches} micro-batches` +
          `${calls.wholeMiniBatches ? ' (whole mini-batches under the webgpu budget)' : ''}, ${calls.optimizerCalls} optimizer ` +
          `steps: ${STEP_FIGURES})`,
      );
      report(
        'webgpu_step.leak_tensors',
        leak,
        'tensors',
        'left by a counted call, the most of any (a repack included)',
      );
    } finally {
      pass.dispatchWorkgroups = dispatchWorkgroups;
      cache.dispose();
      optimizer.dispose();
      policy.dispose();
      reference.dispose();
      if (previous && previous !== 'webgpu') await useNodeBackend(previous);
    }
  },
};
