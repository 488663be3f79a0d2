// The seed probe of the GPU check ("several seeds in one program"): on each backend, at
// S = 1, 4, 16 seeds stacked in one program (model/seedStack.ts, rl/seedStackOptimizer.ts), and for one
// Policy (the lab's single-seed path, every fused kernel on) as the baseline:
//   - a decode step of R rows a seed (S·R rows: step + sampling, the readback awaited) at a fixed cache
//     length, with dispatches and readbacks, as the decode probe times it (decodeProbe.ts);
//   - a training micro-batch of B×T tokens a seed: forward, backward, each seed's gradient-norm clip and
//     AdamW, each seed's norm read back (as the trainer reads its loss), with dispatches.
// What it is not: an RL step. Its seed-steps per second are an ESTIMATE, S / (D·decode step + M·micro-batch)
// with D and M one seed's decode steps and micro-batches per default RL step at m (the H200's figures);
// the env's work, rollouts' shrinking batches and the RL loss's ratio, clip and reference forward are left
// out (the same for every S, so the ratios between S hold better than the absolute figures). The loss is
// −mean(log p·A) per seed. Each run is skipped when the time it would take (estimateRunS) does not fit the
// probe's budget, so the GPU check's one call keeps its deadline.
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from '../../model/config.ts';
import { Policy } from '../../model/transformer.ts';
import { SeedStackedPolicy } from '../../model/seedStack.ts';
import { AdamW, globalNormScale } from '../../rl/optimizer.ts';
import { SeedStackedAdamW } from '../../rl/seedStackOptimizer.ts';
import { Rng } from '../../env/random.ts';
import { probeDecodeStep, type DawnCounters, type DecodingModel } from './decodeProbe.ts';
import { seedStepsPerS, type SeedFigures, type SeedRunFigures, type SeedTrainFigures } from './figures.ts';

export interface SeedProbeSetup {
  /** decode rows a seed and tokens already cached */
  rows: number;
  cacheLength: number;
  /** timed decode steps (after 2 untimed) */
  decodeSteps: number;
  /** a micro-batch of trainRows × trainTokens tokens a seed; trainSteps timed (after 1 untimed) */
  trainRows: number;
  trainTokens: number;
  trainSteps: number;
}

/** the GPU check's settings: the RL default's decode step (32 rows, as the decode probe) and micro-batch (2,048
 * tokens) */
export const SEED_PROBE: SeedProbeSetup = {
  rows: 32,
  cacheLength: 96,
  decodeSteps: 10,
  trainRows: 4,
  trainTokens: 512,
  trainSteps: 3,
};
/** the rehearsal's: what SwiftShader affords */
export const SEED_PROBE_REHEARSAL: SeedProbeSetup = {
  rows: 4,
  cacheLength: 16,
  decodeSteps: 2,
  trainRows: 2,
  trainTokens: 16,
  trainSteps: 1,
};
/** one seed's default RL step at m on the H200 (results/gpu/2026-12-04): 148–177 decode steps, 5–6 micro-batches */
export const RL_STEP_AT_M = { decodeSteps: 160, microBatches: 6 };

/** the stack as the decode probe's model: S·R rows, every row prefilled together */
function stackDecoder(stack: SeedStackedPolicy): DecodingModel {
  return {
    config: stack.config,
    newCache: (rows: number, maxLen?: number) => stack.newCache(rows / stack.seeds, maxLen),
    prefill: (cache, rows, tokens) => {
      if (rows.length !== cache.batch) throw new Error('seed probe: the stack prefills every row at once');
      stack.prefill(cache, tokens);
    },
    step: (cache, last, active) => stack.step(cache, last, active),
  };
}

/** `steps` timed micro-batches (after one untimed) of the stack or one Policy */
async function probeTrain(
  model: SeedStackedPolicy | Policy,
  o: SeedProbeSetup,
  counters: DawnCounters | null,
): Promise<SeedTrainFigures> {
  const S = model instanceof SeedStackedPolicy ? model.seeds : 1;
  const { trainRows: B, trainTokens: T } = o;
  const rng = new Rng(5);
  const V = model.config.vocabSize;
  const tokens = tf.tensor(
    Int32Array.from({ length: S * B * T }, () => rng.int(V)),
    model instanceof SeedStackedPolicy ? [S, B, T] : [B, T],
    'int32',
  );
  const advantages = tf.tensor(
    Float32Array.from({ length: S * B * (T - 1) }, () => rng.next() - 0.5),
    model instanceof SeedStackedPolicy ? [S, B, T - 1] : [B, T - 1],
  );
  const vars = [...model.params.values()];
  const stackAdam = model instanceof SeedStackedPolicy ? new SeedStackedAdamW(model.params, S) : null;
  const adam = model instanceof SeedStackedPolicy ? null : new AdamW(model.params);
  let hostMs = 0;
  const one = async () => {
    const t0 = performance.now();
    const { value, grads } = tf.variableGrads(() => {
      const logProbs =
        model instanceof SeedStackedPolicy
          ? model.logProbs(tokens as tf.Tensor3D).logProbs
          : model.logProbs(tokens as tf.Tensor2D).logProbs;
      // each seed's own token mean (a stack's loss is the sum of its seeds' losses: gradients stay per seed)
      return (
        model instanceof SeedStackedPolicy
          ? logProbs.mul(advantages).mean([1, 2]).sum()
          : logProbs.mul(advantages).mean()
      ).neg() as tf.Scalar;
    }, vars);
    const byName = Object.fromEntries([...model.params].map(([n, v]) => [n, grads[v.name]]));
    let norms: tf.Tensor;
    if (stackAdam) norms = stackAdam.apply(byName, 1e-4, 1);
    else {
      const { norm, scale } = tf.tidy(() => globalNormScale(byName, 1));
      adam!.apply(byName, 1e-4, scale);
      scale.dispose();
      norms = norm;
    }
    const read = norms.data();
    hostMs += performance.now() - t0; // the synchronous JS: tfjs's engine, encoding, submits (SwiftShader's device work too)
    await read;
    tf.dispose([value, norms, ...Object.values(grads)]);
  };
  try {
    await one();
    counters?.reset();
    hostMs = 0;
    const t0 = performance.now();
    for (let i = 0; i < o.trainSteps; i++) await one();
    const f: SeedTrainFigures = {
      rows: B,
      tokens: T,
      steps: o.trainSteps,
      stepMs: (performance.now() - t0) / o.trainSteps,
      hostMs: hostMs / o.trainSteps,
    };
    if (counters) {
      f.dispatches = counters.dispatchTimes.length / o.trainSteps;
      f.readbacks = counters.maps / o.trainSteps;
    }
    return f;
  } finally {
    tf.dispose([tokens, advantages]);
    stackAdam?.dispose();
    adam?.dispose();
  }
}

/** one run: a decode step and a micro-batch of S stacked seeds (or one Policy) on the current backend */
export async function probeSeedRun(
  config: ModelConfig,
  backend: SeedRunFigures['backend'],
  model: SeedRunFigures['model'],
  S: number,
  o: SeedProbeSetup,
  counters: DawnCounters | null,
): Promise<SeedRunFigures> {
  if (model === 'policy' && S !== 1) throw new Error('seed probe: the Policy baseline is one seed');
  const t0 = performance.now();
  const seeds = Array.from({ length: S }, (_, s) => s + 1);
  const run: SeedRunFigures = { backend, seeds: S, model, wallS: 0 };
  const fresh = () => (model === 'stack' ? SeedStackedPolicy.fromSeeds(config, seeds) : new Policy(config, 1));
  let m = fresh();
  try {
    run.decode = await probeDecodeStep(m instanceof SeedStackedPolicy ? stackDecoder(m) : m, {
      rows: S * o.rows,
      cacheLength: o.cacheLength,
      steps: o.decodeSteps,
      warm: 2,
      counters,
    });
    m.dispose();
    m = fresh(); // the micro-batches from the initial weights again
    run.train = await probeTrain(m, o, counters);
    run.seedStepsPerS = seedStepsPerS(run, RL_STEP_AT_M.decodeSteps, RL_STEP_AT_M.microBatches);
  } finally {
    m.dispose();
    run.wallS = (performance.now() - t0) / 1000;
  }
  return run;
}

/** seconds a run at S would take, from the last run: its timed steps scale with S, the rest (shader compiles,
 *  the weights' set-up, the prefill) is counted once as it was — on a GPU the compiles are most of a run and
 *  do not grow with S, so scaling the whole run would skip runs that fit */
export function estimateRunS(
  last: Pick<SeedRunFigures, 'seeds' | 'wallS' | 'decode' | 'train'>,
  S: number,
  o: SeedProbeSetup,
): number {
  const timedS =
    ((last.decode?.stepMs ?? 0) * (o.decodeSteps + 2) + (last.train?.stepMs ?? 0) * (o.trainSteps + 1)) / 1000;
  return Math.max(0, last.wallS - timedS) + timedS * (S / last.seeds);
}

/**
 * Every run of the probe on `backends` in turn (each at most `budgetS` × its share: webgpu 0.6, wasm 0.4):
 * the stack at the first S, the Policy baseline, then the stack at the other S. A run is skipped, with a note, when
 * estimateRunS from the last stack run would overrun the backend's share or `leftS()`. `update` gets the figures after
 * each run.
 */
export async function seedProbe(
  config: ModelConfig,
  scale: SeedFigures['scale'],
  o: {
    seeds: readonly number[];
    backends: readonly SeedRunFigures['backend'][];
    setup: SeedProbeSetup;
    budgetS: number;
    leftS: () => number;
    counters: DawnCounters | null;
    update: (f: SeedFigures) => void;
  },
): Promise<SeedFigures> {
  const f: SeedFigures = {
    scale,
    decodeStepsPerRlStep: RL_STEP_AT_M.decodeSteps,
    microBatchesPerRlStep: RL_STEP_AT_M.microBatches,
    runs: [],
  };
  for (const backend of o.backends) {
    const share = o.budgetS * (o.backends.length > 1 ? (backend === 'webgpu' ? 0.6 : 0.4) : 1);
    const start = performance.now();
    await tf.setBackend(backend);
    let last: SeedRunFigures | null = null;
    // the Policy after the stack's first run: a backend's first run pays its one-off costs (wasm's kernels'
    // modules, buffer pools), which would flatter the stack against the baseline, never the other way
    // wasm: S = 1 only. Its batched matMul is a naive loop (transformer.ts), so a stack of S > 1 is slow there,
    // not a lever (at m, one thread: a micro-batch of 4 seeds 17.4 s against 0.85 s for one), and would eat
    // the GPU call's deadline; S wasm seeds cost S times the Policy baseline's time
    const seeds = backend === 'wasm' ? o.seeds.filter((S) => S === 1) : o.seeds;
    const stacks = seeds.map((S) => ['stack', S] as [SeedRunFigures['model'], number]);
    const plan: [SeedRunFigures['model'], number][] = [...stacks.slice(0, 1), ['policy', 1], ...stacks.slice(1)];
    for (const [model, S] of plan) {
      const spent = (performance.now() - start) / 1000;
      const estimate = last ? estimateRunS(last, S, o.setup) : 0;
      if (spent + estimate > share || estimate > o.leftS()) {
        f.runs.push({
          backend,
          seeds: S,
          model,
          wallS: 0,
          note: `skipped: ~${estimate.toFixed(0)} s would overrun the probe's ${share.toFixed(0)} s on ${backend} (${spent.toFixed(0)} s spent) or the check's deadline`,
        });
        o.update(f);
        continue;
      }
      try {
        const run = await probeSeedRun(config, backend, model, S, o.setup, backend === 'webgpu' ? o.counters : null);
        f.runs.push(run);
        if (model === 'stack') last = run;
        console.log(
          `seeds ${backend} ${model} S=${S}: decode step ${run.decode?.stepMs.toFixed(2)} ms (${run.decode?.dispatches ?? '—'} dispatches), ` +
            `micro-batch ${run.train?.stepMs.toFixed(1)} ms (${run.train?.dispatches ?? '—'} dispatches), ~${run.seedStepsPerS?.toFixed(3) ?? '—'} seed-steps/s (estimate)`,
        );
      } catch (e) {
        f.runs.push({ backend, seeds: S, model, wallS: 0, error: e instanceof Error ? e.message : String(e) });
      }
      o.update(f);
    }
  }
  return f;
}
