// The WebGPU road's own figures, measured on the bench page before anything else has
// compiled a shader:
//   webgpu.dispatches.train|decode|optimizer  GPU compute dispatches per SFT step (forward, backward,
//       clipping, AdamW), per KV-cache decode step (policy.step) and per AdamW update alone, preset s
//   webgpu.first_step_s.train|decode  seconds to the end of the first step with every shader compiled
//       on the way (tfjs's default: one blocking pipeline per new program); .train_ahead the same with
//       the step's shaders compiled ahead in parallel (src/model/kernels/compileAhead.ts);
//       webgpu.first_step_speedup.ahead|fused the ratios; webgpu.pipelines.train the programs compiled
//   webgpu.step_ms.train|decode  a warm step
// Dispatches and step times are measured with the fused kernels (src/model/kernels) and, suffixed
// `.unfused`, with the plain tfjs ops, side by side; webgpu.dispatch_cut.* is their ratio.
// Dispatch counts do not depend on the adapter; times on SwiftShader (CPU-emulated WebGPU) do not
// describe a GPU.
import * as tf from '@tensorflow/tfjs';
import type { Report } from '../harness.ts';
import { createPolicy } from '../../src/model/transformer.ts';
import { preset, type ModelConfig } from '../../src/model/config.ts';
import { SftTrainer, type SftExample } from '../../src/rl/sft.ts';
import { AdamW } from '../../src/rl/optimizer.ts';
import { Rng } from '../../src/env/random.ts';
import { VOCAB } from '../../src/agent/vocab.ts';
import { installDispatchCounter, type DispatchCounter } from './dispatchCounter.ts';
import { setFusedKernels } from '../../src/model/kernels/webgpu.ts';
import { setCompileAhead } from '../../src/model/kernels/compileAhead.ts';
import { decodingMatmul, setDecodingMatmul, type MatmulProgram } from '../../src/model/kernels/matmulProgram.ts';
import { loadStartingPoint } from '../../src/worker/startingPoint.ts';
import { rlEnvironment } from '../../src/rl/rlEnvironment.ts';
import { rollout } from '../../src/agent/rollout.ts';

function examples(config: ModelConfig, n: number, T: number, seed: number): SftExample[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => ({
    tokens: Array.from({ length: T }, () => rng.int(config.vocabSize)),
    lossMask: Array.from({ length: T }, (_, t) => (t >= T / 2 ? 1 : 0)),
  }));
}

/** compute pipelines in tfjs's cache: one per distinct program (shader key) compiled so far */
function pipelineCount(): number {
  return Object.keys((tf.backend() as unknown as { pipelineCache: Record<string, unknown> }).pipelineCache).length;
}

/** forget every compiled pipeline, so the next step compiles its shaders again (a fresh page's cost) */
export function clearPipelineCache(): void {
  (tf.backend() as unknown as { pipelineCache: Record<string, unknown> }).pipelineCache = {};
}

interface Shapes { B: number; T: number; decodeB: number; context: number }
export const QUICK: Shapes = { B: 2, T: 64, decodeB: 4, context: 48 };

/** first and warm SFT steps of preset s at B×T: seconds to the first, ms and dispatches of a warm one */
async function trainFigures(
  counter: DispatchCounter,
  { B, T }: Shapes,
  extraWarmSteps = 0,
): Promise<{ firstS: number; pipelines: number; stepMs: number; dispatches: number; leak: number }> {
  const config = preset('s', VOCAB.size);
  const policy = createPolicy(config, 1);
  const trainer = new SftTrainer(policy, examples(config, B * 4, T, 3), { batchSize: B, padMultiple: 1 });
  let t0 = performance.now();
  const cached = pipelineCount();
  await trainer.sftStep();
  const firstS = (performance.now() - t0) / 1000;
  const pipelines = pipelineCount() - cached;
  const before = tf.memory().numTensors;
  t0 = performance.now();
  const dispatches = await counter.measure(() => trainer.sftStep());
  for (let i = 0; i < extraWarmSteps; i++) await trainer.sftStep();
  const stepMs = (performance.now() - t0) / (1 + extraWarmSteps);
  const leak = tf.memory().numTensors - before;
  trainer.dispose();
  policy.dispose();
  return { firstS, pipelines, stepMs, dispatches, leak };
}

/** a prefilled cache of decodeB rows, then KV-cache steps: seconds to the first, ms and dispatches of a warm one */
async function decodeFigures(
  counter: DispatchCounter,
  { decodeB: B, context }: Shapes,
): Promise<{ firstS: number; stepMs: number; dispatches: number; leak: number }> {
  const config = preset('s', VOCAB.size);
  const policy = createPolicy(config, 1);
  const rng = new Rng(5);
  const cache = policy.newCache(B, context + 8);
  policy.prefill(
    cache,
    Array.from({ length: B }, (_, b) => b),
    Array.from({ length: B }, () => Array.from({ length: context }, () => rng.int(config.vocabSize))),
  );
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

/** seconds of a first rollout (4 RL queries, the shipped s checkpoint) with no shader compiled yet —
 *  KV-cache prefills and decode steps at the batch sizes and lengths a rollout meets — then of the
 *  same rollout again, every shader compiled */
async function rolloutSeconds(): Promise<{ first: number; warm: number; tokens: number }> {
  const start = await loadStartingPoint({ kind: 'shipped', scale: 's' });
  try {
    const env = rlEnvironment(start.origin, { trainSize: 64, mix: [4, 3, 3] });
    const tasks = env.train.slice(0, 4).map((query) => ({ kind: 'travel' as const, query }));
    let t0 = performance.now();
    const eps = await rollout(start.policy, tasks, { world: env.world, rng: new Rng(3) });
    const first = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await rollout(start.policy, tasks, { world: env.world, rng: new Rng(3) });
    return { first, warm: (performance.now() - t0) / 1000, tokens: eps.reduce((s, e) => s + e.tokens.length, 0) };
  } finally {
    start.policy.dispose();
  }
}

/** tfjs's matmul program for every matMul: -1 lets it choose per shape, 2 is MatMulSmallOutputSize */
function setTrainingMatmul(choice: MatmulProgram): void {
  tf.env().set('WEBGPU_MATMUL_PROGRAM_TYPE', choice === 'small' ? 2 : -1);
}

/** the first SFT step, a warm one, a first rollout and a warm one with each of tfjs's matmul programs,
 *  every pipeline compiled afresh for each (src/model/kernels/matmulProgram.ts: why the lab keeps tfjs's
 *  choice) */
async function matmulProgramFigures(report: Report, counter: DispatchCounter, shapes: Shapes): Promise<void> {
  const lab = decodingMatmul();
  const figures: Partial<
    Record<
      MatmulProgram,
      { train: Awaited<ReturnType<typeof trainFigures>>; rollout: Awaited<ReturnType<typeof rolloutSeconds>> }
    >
  > = {};
  try {
    for (const choice of ['small', 'auto'] as const) { // small first: the second measured has the warmer JS
      setTrainingMatmul(choice);
      clearPipelineCache();
      const train = await trainFigures(counter, shapes, 2);
      setTrainingMatmul('auto');
      setDecodingMatmul(choice);
      clearPipelineCache();
      figures[choice] = { train, rollout: await rolloutSeconds() };
    }
  } finally {
    setTrainingMatmul('auto');
    setDecodingMatmul(lab);
  }
  const { auto, small } = figures as Record<MatmulProgram, NonNullable<(typeof figures)['auto']>>;
  const first = `preset s, SFT step ${shapes.B}×${shapes.T}, no shader compiled yet`;
  const rolloutNote = `4 RL queries, ${auto.rollout.tokens} tokens (small: ${small.rollout.tokens})`;
  report(
    'webgpu.first_step_s.train.matmul_auto',
    auto.train.firstS,
    's',
    `${first}, tfjs's choice (MatMulPacked for most)`,
  );
  report(
    'webgpu.first_step_s.train.matmul_small',
    small.train.firstS,
    's',
    `${first}, every matmul MatMulSmallOutputSize`,
  );
  report(
    'webgpu.first_step_speedup.matmul_small',
    auto.train.firstS / small.train.firstS,
    '×',
    "first SFT step: tfjs's choice over the small program",
  );
  report('webgpu.step_ms.train.matmul_auto', auto.train.stepMs, 'ms', 'a warm SFT step (mean of 3), tfjs\'s choice');
  report('webgpu.step_ms.train.matmul_small', small.train.stepMs, 'ms', 'the same, the small program');
  report(
    'webgpu.first_rollout_s.matmul_auto',
    auto.rollout.first,
    's',
    `first rollout, no shader compiled yet, tfjs's choice; ${rolloutNote}`,
  );
  report(
    'webgpu.first_rollout_s.matmul_small',
    small.rollout.first,
    's',
    'the same, every decoding matmul MatMulSmallOutputSize',
  );
  report(
    'webgpu.first_rollout_speedup.matmul_small',
    auto.rollout.first / small.rollout.first,
    '×',
    "first rollout: tfjs's choice over the small program",
  );
  report(
    'webgpu.rollout_s.warm.matmul_auto',
    auto.rollout.warm,
    's',
    "the same rollout again, every shader compiled, tfjs's choice",
  );
  report('webgpu.rollout_s.warm.matmul_small', small.rollout.warm, 's', 'the same, the small program');
}

/** only the matmul programs' side by side (bench.html?only=matmul) */
export async function measureMatmulPrograms(report: Report, shapes: Shapes = QUICK): Promise<void> {
  const counter = installDispatchCounter();
  try {
    await matmulProgramFigures(report, counter, shapes);
  } finally {
    counter.uninstall();
  }
}

/** each figure with the fused kernels (the default) and without (the plain tfjs ops), side by side */
async function bothWays<T>(fn: () => Promise<T>): Promise<{ fused: T; plain: T }> {
  setFusedKernels(false);
  try {
    const plain = await fn();
    setFusedKernels(true);
    return { fused: await fn(), plain };
  } finally {
    setFusedKernels(true);
  }
}

/** only the first SFT step on this page (no shader compiled yet by this page): what a visit pays before
 *  training starts. Run on two launches of one browser profile, it shows what the browser's own
 *  shader cache saves a returning visitor (bench/webgpu.ts: webgpu.first_step_s.train_revisit) */
export async function measureFirstStep(report: Report, shapes: Shapes = QUICK): Promise<void> {
  const counter = installDispatchCounter();
  try {
    const r = await trainFigures(counter, shapes);
    report(
      'webgpu.first_step_s.train',
      r.firstS,
      's',
      `preset s, SFT step ${shapes.B}×${shapes.T}, no shader compiled yet by this page`,
    );
    report('webgpu.pipelines.train', r.pipelines, 'pipelines', 'distinct GPU programs compiled by the first SFT step');
  } finally {
    counter.uninstall();
  }
}

export async function measureWebGPU(report: Report, shapes: Shapes = QUICK): Promise<void> {
  const counter = installDispatchCounter();
  const leakNote = 'tensors left after a warm step, fused kernels (must be 0)';
  try {
    // time to the first step on a fresh page: shaders compiled one by one as the step meets them (tfjs's
    // default); then with the pipeline cache emptied, every shader of the step compiled ahead at once;
    // then emptied again, one by one with the plain ops instead of the fused kernels
    setCompileAhead(false);
    const fused = await trainFigures(counter, shapes);
    clearPipelineCache();
    setCompileAhead(true);
    const ahead = await trainFigures(counter, shapes);
    clearPipelineCache();
    setCompileAhead(false);
    setFusedKernels(false);
    const plain = await trainFigures(counter, shapes);
    setFusedKernels(true);
    const first = `preset s, SFT step ${shapes.B}×${shapes.T}, no shader compiled yet`;
    report(
      'webgpu.first_step_s.train',
      fused.firstS,
      's',
      `${first}, compiled one by one as the step meets them, fused kernels`,
    );
    report(
      'webgpu.first_step_s.train_ahead',
      ahead.firstS,
      's',
      `${first}, every shader compiled ahead at once (compileAhead), fused kernels`,
    );
    report('webgpu.first_step_s.train.unfused', plain.firstS, 's', `${first}, one by one, the plain tfjs ops`);
    report(
      'webgpu.first_step_speedup.ahead',
      fused.firstS / ahead.firstS,
      '×',
      'first step: one by one over compiled ahead (> 1: ahead is faster)',
    );
    report(
      'webgpu.first_step_speedup.fused',
      plain.firstS / fused.firstS,
      '×',
      'first step: plain ops over fused kernels, both one by one',
    );
    report(
      'webgpu.pipelines.train',
      fused.pipelines,
      'pipelines',
      'distinct GPU programs compiled by the first SFT step, fused kernels',
    );
    report('webgpu.pipelines.train.unfused', plain.pipelines, 'pipelines', 'the same with the plain tfjs ops');

    report(
      'webgpu.dispatches.train',
      fused.dispatches,
      'dispatches',
      'per SFT step (forward, backward, clipping, AdamW), fused kernels',
    );
    report('webgpu.dispatches.train.unfused', plain.dispatches, 'dispatches', 'the same with the plain tfjs ops');
    report(
      'webgpu.dispatch_cut.train',
      plain.dispatches / fused.dispatches,
      '×',
      'unfused over fused dispatches per SFT step',
    );
    report('webgpu.step_ms.train', fused.stepMs, 'ms', 'a warm SFT step, fused kernels');
    report('webgpu.step_ms.train.unfused', plain.stepMs, 'ms', 'the same with the plain tfjs ops');
    report('webgpu.leak_tensors.train', fused.leak, 'tensors', leakNote);

    const decode = await bothWays(() => decodeFigures(counter, shapes));
    report(
      'webgpu.first_step_s.decode',
      decode.plain.firstS,
      's',
      `preset s, KV-cache step, batch ${shapes.decodeB}, after the training step's shaders`,
    );
    report(
      'webgpu.dispatches.decode',
      decode.fused.dispatches,
      'dispatches',
      'per KV-cache decode step (policy.step), fused kernels',
    );
    report(
      'webgpu.dispatches.decode.unfused',
      decode.plain.dispatches,
      'dispatches',
      'the same with the plain tfjs ops',
    );
    report(
      'webgpu.dispatch_cut.decode',
      decode.plain.dispatches / decode.fused.dispatches,
      '×',
      'unfused over fused dispatches per decode step',
    );
    report('webgpu.step_ms.decode', decode.fused.stepMs, 'ms', 'a warm decode step, fused kernels');
    report('webgpu.step_ms.decode.unfused', decode.plain.stepMs, 'ms', 'the same with the plain tfjs ops');
    report('webgpu.leak_tensors.decode', decode.fused.leak, 'tensors', leakNote);

    const opt = await bothWays(() => optimizerDispatches(counter));
    report(
      'webgpu.dispatches.optimizer',
      opt.fused.dispatches,
      'dispatches',
      'per AdamW update of preset s, fused kernel',
    );
    report(
      'webgpu.dispatches.optimizer.unfused',
      opt.plain.dispatches,
      'dispatches',
      'the same with the plain tfjs ops',
    );
    report(
      'webgpu.dispatch_cut.optimizer',
      opt.plain.dispatches / opt.fused.dispatches,
      '×',
      'unfused over fused dispatches per AdamW update',
    );
    report('webgpu.leak_tensors.optimizer', opt.fused.leak, 'tensors', leakNote);
    console.log('dispatches by program since load', JSON.stringify(Object.fromEntries(counter.byProgram)));
    await matmulProgramFigures(report, counter, shapes);
  } finally {
    setCompileAhead(false); // the lab's default
    counter.uninstall();
  }
}
