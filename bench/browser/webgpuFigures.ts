// The WebGPU road's own figures (issue 12), measured on the bench page before anything else has
// compiled a shader:
//   webgpu.dispatches.train|decode|optimizer  GPU compute dispatches per SFT step (forward, backward,
//       clipping, AdamW), per KV-cache decode step (policy.step) and per AdamW update alone, preset s
//   webgpu.first_step_s.train|decode  seconds to the end of the first step with every shader compiled
//       on the way (tfjs's default: one blocking pipeline per new program)
//   webgpu.step_ms.train|decode  a warm step
// Dispatch counts do not depend on the adapter; times on SwiftShader (CPU-emulated WebGPU) do not
// describe a GPU.
import * as tf from '@tensorflow/tfjs';
import type { Report } from '../harness.ts';
import { createPolicy, preset, type ModelConfig } from '../../src/model/transformer.ts';
import { SftTrainer, type SftExample } from '../../src/rl/sft.ts';
import { AdamW } from '../../src/rl/optimizer.ts';
import { Rng } from '../../src/env/random.ts';
import { VOCAB } from '../../src/agent/vocab.ts';
import { installDispatchCounter, type DispatchCounter } from './dispatchCounter.ts';

function examples(config: ModelConfig, n: number, T: number, seed: number): SftExample[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => ({
    tokens: Array.from({ length: T }, () => rng.int(config.vocabSize)),
    lossMask: Array.from({ length: T }, (_, t) => (t >= T / 2 ? 1 : 0)),
  }));
}

/** forget every compiled pipeline, so the next step compiles its shaders again (a fresh page's cost) */
export function clearPipelineCache(): void {
  (tf.backend() as unknown as { pipelineCache: Record<string, unknown> }).pipelineCache = {};
}

interface Shapes { B: number; T: number; decodeB: number; context: number }
export const QUICK: Shapes = { B: 2, T: 64, decodeB: 4, context: 48 };

/** first and warm SFT steps of preset s at B×T: seconds to the first, ms and dispatches of a warm one */
async function trainFigures(counter: DispatchCounter, { B, T }: Shapes): Promise<{ firstS: number; stepMs: number; dispatches: number; leak: number }> {
  const config = preset('s', VOCAB.size);
  const policy = createPolicy(config, 1);
  const trainer = new SftTrainer(policy, examples(config, B * 4, T, 3), { batchSize: B, padMultiple: 1 });
  let t0 = performance.now();
  await trainer.sftStep();
  const firstS = (performance.now() - t0) / 1000;
  const before = tf.memory().numTensors;
  t0 = performance.now();
  const dispatches = await counter.measure(() => trainer.sftStep());
  const stepMs = performance.now() - t0;
  const leak = tf.memory().numTensors - before;
  trainer.dispose();
  policy.dispose();
  return { firstS, stepMs, dispatches, leak };
}

/** a prefilled cache of decodeB rows, then KV-cache steps: seconds to the first, ms and dispatches of a warm one */
async function decodeFigures(counter: DispatchCounter, { decodeB: B, context }: Shapes): Promise<{ firstS: number; stepMs: number; dispatches: number; leak: number }> {
  const config = preset('s', VOCAB.size);
  const policy = createPolicy(config, 1);
  const rng = new Rng(5);
  const cache = policy.newCache(B, context + 8);
  policy.prefill(cache, Array.from({ length: B }, (_, b) => b), Array.from({ length: B }, () => Array.from({ length: context }, () => rng.int(config.vocabSize))));
  const token = () => Array.from({ length: B }, () => rng.int(config.vocabSize));
  let t0 = performance.now();
  const first = policy.step(cache, token());
  await first.data();
  first.dispose();
  const firstS = (performance.now() - t0) / 1000;
  const before = tf.memory().numTensors;
  t0 = performance.now();
  const dispatches = await counter.measure(async () => {
    const logits = policy.step(cache, token());
    await logits.data();
    logits.dispose();
  });
  const stepMs = performance.now() - t0;
  const leak = tf.memory().numTensors - before;
  cache.dispose();
  policy.dispose();
  return { firstS, stepMs, dispatches, leak };
}

/** dispatches of one AdamW update over preset s's parameters */
async function optimizerDispatches(counter: DispatchCounter): Promise<{ dispatches: number; leak: number }> {
  const policy = createPolicy(preset('s', VOCAB.size), 1);
  const opt = new AdamW(policy.params);
  const grads: Record<string, tf.Tensor> = {};
  for (const [name, p] of policy.params) grads[name] = tf.onesLike(p).mul(1e-3);
  opt.apply(grads, 1e-3); // compile
  const before = tf.memory().numTensors;
  const dispatches = await counter.measure(async () => {
    opt.apply(grads, 1e-3);
    await policy.params.get('wte')!.data(); // wait for the GPU
  });
  const leak = tf.memory().numTensors - before;
  tf.dispose(Object.values(grads));
  opt.dispose();
  policy.dispose();
  return { dispatches, leak };
}

export async function measureWebGPU(report: Report, shapes: Shapes = QUICK): Promise<void> {
  const counter = installDispatchCounter();
  try {
    const train = await trainFigures(counter, shapes);
    report('webgpu.first_step_s.train', train.firstS, 's', `preset s, SFT step ${shapes.B}×${shapes.T}, shaders compiled on the way (fresh page)`);
    report('webgpu.step_ms.train', train.stepMs, 'ms', 'a warm SFT step');
    report('webgpu.dispatches.train', train.dispatches, 'dispatches', 'per SFT step: forward, backward, clipping, AdamW');
    report('webgpu.leak_tensors.train', train.leak, 'tensors', 'tensors left after a step (must be 0)');
    const decode = await decodeFigures(counter, shapes);
    report('webgpu.first_step_s.decode', decode.firstS, 's', `preset s, KV-cache step, batch ${shapes.decodeB}, after the training step's shaders`);
    report('webgpu.step_ms.decode', decode.stepMs, 'ms', 'a warm decode step');
    report('webgpu.dispatches.decode', decode.dispatches, 'dispatches', 'per KV-cache decode step (policy.step)');
    report('webgpu.leak_tensors.decode', decode.leak, 'tensors', 'tensors left after a step (must be 0)');
    const opt = await optimizerDispatches(counter);
    report('webgpu.dispatches.optimizer', opt.dispatches, 'dispatches', 'per AdamW update of preset s');
    report('webgpu.leak_tensors.optimizer', opt.leak, 'tensors', 'tensors left after an update (must be 0)');
    console.log('dispatches by program since load', JSON.stringify(Object.fromEntries(counter.byProgram)));
  } finally {
    counter.uninstall();
  }
}
