// The GPU check's measurement (`gpu-check --run`, docs/gpu-check.md): for each scale, RL steps (rollouts +
// update, the lab's default config at that scale) on webgpu and on wasm in this one process, from the
// shipped checkpoints, each with a first step (shader compiles, allocations) and then timed steps, all
// under one deadline so the whole check fits its call on the GPU machine. On webgpu it counts compute
// dispatches, queue submits and buffer maps by wrapping Dawn's own methods, split into the rollout and
// the update by time. figures.json is rewritten after every step.
import * as tf from '@tensorflow/tfjs';
import os from 'node:os';
import { defaultConfig, type LabConfig } from '../../lab/config.ts';
import { rlConfigFromLab, type RlConfig } from '../../rl/rlConfig.ts';
import { rlEnvironment } from '../../rl/rlEnvironment.ts';
import { RlTrainer } from '../../rl/rlTrainer.ts';
import { policyFromCheckpoint } from '../../rl/loadPolicy.ts';
import { Policy } from '../../model/transformer.ts';
import { setCompileAhead } from '../../model/kernels/compileAhead.ts';
import { readCheckpointDir } from '../../node/checkpointDir.ts';
import { shippedCheckpointDir } from '../rlRun.ts';
import { useNodeBackend } from '../../node/nodeBackend.ts';
import { describeAdapter, startNodeWebgpu, WEBGPU_ADAPTER_ENV } from '../../node/nodeWebgpu.ts';
import { setFusedDecode, type WebGPUBackend } from '../../model/kernels/webgpu.ts';
import { bufferPoolStats, resetPoolPeaks } from '../../model/kernels/bufferPool.ts';
import { emptyPhaseCounts, installPhaseCounts } from './phaseCounts.ts';
import { SEED_PROBE, SEED_PROBE_REHEARSAL, seedProbe } from './seedProbe.ts';
import { stackStepProbe } from './stackStepProbe.ts';
import { DawnCounters, probeDecodeStep, probeOpUs, probeReadbackMs } from './decodeProbe.ts';
import {
  summarizeDecode,
  summarizeScale,
  type BackendFigures,
  type CheckBackend,
  type DecodeProbeFigures,
  type GpuCheckFigures,
  type PoolPhaseFigures,
  type Scale,
  type StepFigures,
} from './figures.ts';
import { METRIC } from '../../lab/metricNames.ts';

export interface MeasureOptions {
  scales: Scale[];
  /** timed steps after the first, per scale and backend */
  steps: number;
  /** seconds from the start after which no new step begins */
  deadlineS: number;
  /** SwiftShader is accepted and the steps are tiny (1 query × 2 rollouts, 1 turn): the pack's rehearsal */
  rehearse: boolean;
  /** accept a fallback adapter (SwiftShader) at full-size steps: counting dispatches, which are a GPU's there too */
  anyAdapter: boolean;
  wasmThreads: number;
  /** tfjs flags to set once webgpu has started (e.g. WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE): a lever tried without a new
   * pack */
  webgpuFlags: Record<string, number | boolean>;
  /** compile a new step's shaders at once (kernels/compileAhead.ts; off in the lab until a GPU shows it pays) */
  compileAhead: boolean;
  /** settings over the lab's defaults (e.g. queriesPerStep: a larger batch a step, the proxy for several seeds in one
   * program) */
  config: Partial<LabConfig>;
  /** the backends to measure, in order (default webgpu then wasm) */
  backends: readonly CheckBackend[];
  /** timed decode steps per run of the decode-step probe (0: no probe) */
  decodeSteps: number;
  /** the seed probe's S values ([]: no probe) and its budget in seconds (seedProbe.ts) */
  seeds: readonly number[];
  seedProbeS: number;
  /** the S-seed RL step probe's S values ([]: none) and its budget in seconds (stackStepProbe.ts) */
  stackSeeds: readonly number[];
  stackProbeS: number;
  /** called with the figures after every change */
  write: (f: GpuCheckFigures) => void;
  figures: GpuCheckFigures;
}

/** what a rehearsal changes: a step SwiftShader can afford (~1 min) */
const REHEARSAL: Partial<RlConfig> = { queriesPerStep: 1, groupSize: 2, maxTurns: 1, miniBatches: 1 };

/** Policy.step calls (one decode step of the live rows) since the last timedStep began */
let decodeSteps = 0;
function countDecodeSteps(): void {
  const original = Policy.prototype.step;
  Policy.prototype.step = function (this: Policy, ...args: Parameters<Policy['step']>) {
    decodeSteps++;
    return original.apply(this, args);
  };
}

/** called once at the update's first forward pass in a step (Policy.logProbsAt: the rollouts never call it) */
let onUpdateStart: (() => void) | null = null;
function markUpdateStart(): void {
  const original = Policy.prototype.logProbsAt;
  Policy.prototype.logProbsAt = function (this: Policy, ...args: Parameters<Policy['logProbsAt']>) {
    const start = onUpdateStart;
    onUpdateStart = null;
    start?.();
    return original.apply(this, args);
  };
}

/** the pool's figures since the last resetPoolPeaks, and restarts its peaks */
function poolPhase(backend: WebGPUBackend, evictedBefore: number): PoolPhaseFigures {
  const p = bufferPoolStats(backend);
  resetPoolPeaks(backend);
  return {
    peakUsedBytes: p.peakUsedBytes,
    peakAllocatedBytes: p.peakAllocatedBytes,
    allocatedBytes: p.allocatedBytes,
    evictedBuffers: p.evictedBuffers - evictedBefore,
  };
}

const elapsedS = (t0: number) => (performance.now() - t0) / 1000;

export async function measure(o: MeasureOptions): Promise<void> {
  const t0 = performance.now();
  const f = o.figures;
  const save = () => { f.updatedAt = new Date().toISOString(); o.write(f); };
  // both backends start first: the adapter is the check's first answer, and a failure there costs nothing else
  if (!o.anyAdapter) process.env[WEBGPU_ADAPTER_ENV] = 'hardware';
  let counters: DawnCounters | null = null;
  try {
    f.adapter = await startNodeWebgpu();
    console.log(`adapter: ${describeAdapter(f.adapter)}`);
    counters = DawnCounters.install();
  } catch (e) {
    // no GPU: say so first and loudest, then still measure wasm on this machine's cores (also unknown so far)
    const message = `NO WEBGPU ADAPTER — webgpu is not measured: ${e instanceof Error ? e.message : String(e)}`;
    console.error(message);
    f.errors.push(message);
  }
  if (counters) {
    // a misspelt flag fails here, before any step: tfjs throws on a flag it has not registered
    for (const [k, v] of Object.entries(o.webgpuFlags)) tf.env().set(k, v);
    setCompileAhead(o.compileAhead);
    // every registered WEBGPU_* flag, evaluated (getFlags() holds only those read so far)
    const registry = (tf.env() as unknown as { flagRegistry: Record<string, unknown> }).flagRegistry;
    f.webgpuFlags = Object.fromEntries(
      Object.keys(registry)
        .filter((k) => k.startsWith('WEBGPU'))
        .map((k) => [k, tf.env().get(k)]),
    );
  }
  save();
  countDecodeSteps();
  markUpdateStart();
  f.wasmThreads = await useNodeBackend('wasm', o.wasmThreads);
  console.log(`wasm: ${f.wasmThreads} threads of ${os.availableParallelism()} cores`);
  save();
  // the decode step alone, before the scales (on wasm at the threads just set)
  if (counters && o.decodeSteps > 0) {
    try {
      await decodeProbe(o, f, counters, save);
    } catch (e) {
      f.errors.push(`decode probe: ${e instanceof Error ? e.message : String(e)}`);
      save();
    }
  }
  // S seeds in one program, at the first scale's shape, on the backends asked for
  const seedBackends = (['webgpu', 'wasm'] as const).filter(
    (b) => o.backends.includes(b) && (b === 'wasm' || counters),
  );
  if (o.seeds.length > 0 && seedBackends.length > 0) {
    try {
      const { config } = await readCheckpointDir(shippedCheckpointDir(o.scales[0]));
      await seedProbe(config, o.scales[0], {
        seeds: o.seeds,
        backends: seedBackends,
        setup: o.rehearse ? SEED_PROBE_REHEARSAL : SEED_PROBE,
        budgetS: o.seedProbeS,
        leftS: () => o.deadlineS - elapsedS(t0),
        counters,
        update: (s) => {
          f.seeds = s;
          save();
        },
      });
    } catch (e) {
      f.errors.push(`seed probe: ${e instanceof Error ? e.message : String(e)}`);
      save();
    }
  }

  // the S-seed RL step at the first scale's setting on webgpu, once that scale is measured (its webgpu step is the
  // single-run baseline) and before the other scales, which the deadline may cut
  const stackProbe = async (scale: Scale) => {
    if (!counters || o.stackSeeds.length === 0 || !o.backends.includes('webgpu')) return;
    try {
      await stackStepProbe({
        scale,
        rl: { ...rlConfigFromLab({ ...defaultConfig(), ...o.config, scale }), ...(o.rehearse ? REHEARSAL : {}) },
        seeds: o.stackSeeds,
        budgetS: o.stackProbeS,
        leftS: () => o.deadlineS - elapsedS(t0),
        counters,
        singleRunStepS: f.scales[scale]?.webgpu?.steps.length ? f.scales[scale].webgpuStepS : null,
        update: (s) => {
          f.stack = s;
          save();
        },
      });
    } catch (e) {
      f.errors.push(`stack probe: ${e instanceof Error ? e.message : String(e)}`);
      save();
    }
  };

  for (const scale of o.scales) {
    const lab: LabConfig = { ...defaultConfig(), ...o.config, scale };
    const rl: RlConfig = { ...rlConfigFromLab(lab), ...(o.rehearse ? REHEARSAL : {}) };
    const setup = {
      queriesPerStep: rl.queriesPerStep,
      groupSize: rl.groupSize,
      maxTurns: rl.maxTurns,
      miniBatches: rl.miniBatches,
      microBatchTokens: rl.microBatchTokens,
      algorithm: rl.algorithm,
      seed: rl.seed,
    };
    const parts: Partial<Record<CheckBackend, BackendFigures>> = {};
    const summary = () => summarizeScale(setup, parts.webgpu, parts.wasm, parts['webgpu-plain']);
    for (const backend of o.backends.filter((b) => counters || b === 'wasm')) {
      const part: BackendFigures = {
        backend,
        ...(backend === 'wasm' ? { threads: f.wasmThreads } : {}),
        steps: [],
        stepS: null,
      };
      parts[backend] = part;
      f.scales[scale] = summary();
      if (elapsedS(t0) > o.deadlineS) {
        part.note = `skipped: the check's ${o.deadlineS} s were spent`;
        save();
        continue;
      }
      try {
        await tf.setBackend(backend === 'wasm' ? 'wasm' : 'webgpu');
        setFusedDecode(backend !== 'webgpu-plain'); // the plain decode path: the levers' before
        await runPart(
          scale,
          rl,
          part,
          backend === 'wasm' ? null : counters,
          () => o.deadlineS - elapsedS(t0),
          o.steps,
          () => {
            f.scales[scale] = summary();
            save();
          },
        );
      } catch (e) {
        part.error = e instanceof Error ? e.message : String(e);
        f.errors.push(`${scale} ${backend}: ${part.error}`);
      } finally {
        setFusedDecode(true);
      }
      f.scales[scale] = summary();
      save();
      const timed = part.steps.length ? part.steps : part.firstStep ? [part.firstStep] : [];
      const ph = timed.at(-1)?.phases;
      if (ph) {
        console.log(`${scale} ${backend} dispatches by phase: prefills ${ph.prefill} (${ph.prefillCalls} calls), ` +
          `decode steps ${ph.decode} (${ph.decodeCalls}), sampling and the rest ${ph.rolloutOther}; ` +
          `forward ${ph.forward} (${ph.forwardCalls} calls), backward and the rest ${ph.updateOther}, ` +
          `optimizer ${ph.optimizer} (${ph.optimizerCalls} steps); ${timed.at(-1)?.microBatches} micro-batches`);
      }
      const dispatches =
        timed.length && timed[0].dispatches !== undefined
          ? timed.reduce((a, x) => a + (x.dispatches ?? 0), 0) / timed.length
          : null;
      console.log(
        `${scale} ${backend}: ${part.stepS?.toFixed(2) ?? '—'} s a step (first ${part.firstStep?.wallS.toFixed(1) ?? '—'} s)` +
          `${dispatches !== null ? `, ${Math.round(dispatches)} dispatches` : ''}${part.note ? ` — ${part.note}` : ''}${part.error ? ` — error: ${part.error}` : ''}`,
      );
    }
    const s = f.scales[scale]!;
    if (s.webgpuSpeedup !== null) console.log(`${scale}: webgpu ${s.webgpuSpeedup.toFixed(2)}× wasm's speed`);
    if (s.webgpuPlainSpeedup != null)
      console.log(`${scale}: webgpu with the decode levers off ${s.webgpuPlainSpeedup.toFixed(2)}× wasm's speed`);
    if (scale === o.scales[0]) await stackProbe(scale);
  }
  f.complete = true;
  save();
}

/**
 * The decode step alone (decodeProbe.ts) at the first scale: a tiny readback's round trip and a tiny op's host
 * cost, then a decode step of the default rollout's 32 rows (rehearsal: 4) on webgpu with the decode levers off
 * and on, alternated over two rounds, and on wasm once; every run after two untimed steps (shader compiles).
 */
async function decodeProbe(
  o: MeasureOptions,
  f: GpuCheckFigures,
  counters: DawnCounters,
  save: () => void,
): Promise<void> {
  const scale = o.scales[0];
  const rows = o.rehearse ? 4 : 32;
  const cacheLength = o.rehearse ? 16 : 96;
  const ckpt = await readCheckpointDir(shippedCheckpointDir(scale));
  const runs: Record<'plain' | 'fused' | 'wasm', DecodeProbeFigures[]> = { plain: [], fused: [], wasm: [] };
  let readbackMs: number | null = null;
  let opUs: number | null = null;
  const update = () => {
    f.decode = summarizeDecode({ scale, readbackMs, opUs, ...runs });
    save();
  };
  const probe = async (kind: 'plain' | 'fused' | 'wasm') => {
    await tf.setBackend(kind === 'wasm' ? 'wasm' : 'webgpu');
    setFusedDecode(kind !== 'plain');
    const policy = policyFromCheckpoint(ckpt);
    try {
      const r = await probeDecodeStep(policy, {
        rows,
        cacheLength,
        steps: o.decodeSteps,
        warm: 2,
        counters: kind === 'wasm' ? null : counters,
      });
      runs[kind].push(r);
      console.log(
        `decode step (${scale}, ${rows} rows, ${cacheLength} cached) ${kind}: ${r.stepMs.toFixed(2)} ms, host ${r.hostMs.toFixed(2)} ms` +
          `${r.dispatches !== undefined ? `, ${r.dispatches} dispatches, ${r.readbacks} readbacks, ${r.submits} submits` : ''}`,
      );
    } finally {
      policy.dispose();
      setFusedDecode(true);
    }
    update();
  };
  await tf.setBackend('webgpu');
  const device = (tf.backend() as unknown as { device: GPUDevice }).device;
  readbackMs = await probeReadbackMs(device, 50);
  opUs = await probeOpUs(2000);
  console.log(`readback round trip ${readbackMs.toFixed(3)} ms; a tiny op's host cost ${opUs.toFixed(1)} µs`);
  update();
  for (let round = 0; round < 2; round++) for (const kind of ['plain', 'fused'] as const) await probe(kind);
  await probe('wasm');
}

/** the first step and up to `steps` timed ones of one scale on the current backend */
async function runPart(
  scale: Scale,
  rl: RlConfig,
  part: BackendFigures,
  counters: DawnCounters | null,
  leftS: () => number,
  steps: number,
  saved: () => void,
): Promise<void> {
  const ckpt = await readCheckpointDir(shippedCheckpointDir(scale));
  const env = rlEnvironment(
    { world: ckpt.card.world, data: ckpt.card.data, contextLength: ckpt.config.contextLength },
    { trainSize: defaultConfig().trainSize, mix: defaultConfig().mix },
  );
  const policy = policyFromCheckpoint(ckpt);
  const reference = rl.klCoef > 0 ? policyFromCheckpoint(ckpt) : null;
  const trainer = new RlTrainer(policy, reference, env, rl);
  try {
    part.firstStep = await timedStep(trainer, counters);
    part.stepS = part.firstStep.wallS;
    saved();
    for (let i = 0; i < steps; i++) {
      const last = part.steps.at(-1)?.wallS ?? part.firstStep.wallS;
      if (leftS() < last * 1.2) {
        part.note = `${i} of ${steps} timed steps: the deadline was near`;
        break;
      }
      part.steps.push(await timedStep(trainer, counters));
      part.stepS = part.steps.reduce((a, s) => a + s.wallS, 0) / part.steps.length;
      saved();
    }
    const memory = tf.memory() as unknown as Record<string, unknown>;
    part.memory = Object.fromEntries(Object.entries(memory).filter(([, v]) => typeof v === 'number')) as Record<
      string,
      number
    >;
    if (counters) part.pool = bufferPoolStats(tf.backend() as unknown as WebGPUBackend);
  } finally {
    trainer.dispose();
    trainer.policy.dispose();
    reference?.dispose();
  }
}

async function timedStep(trainer: RlTrainer, counters: DawnCounters | null): Promise<StepFigures> {
  counters?.reset();
  const phases = installPhaseCounts(counters);
  phases.counts = emptyPhaseCounts();
  decodeSteps = 0;
  // the pool's peaks per phase: reset here, read at the update's first forward pass and at the step's end
  const backend = counters ? (tf.backend() as unknown as WebGPUBackend) : null;
  let rolloutPool: PoolPhaseFigures | null = null;
  const evicted = backend ? bufferPoolStats(backend).evictedBuffers : 0;
  if (backend) {
    resetPoolPeaks(backend);
    onUpdateStart = () => { rolloutPool = poolPhase(backend, evicted); };
  }
  const start = performance.now();
  const m = await trainer.trainStep();
  onUpdateStart = null;
  const wallS = elapsedS(start);
  const rolloutS = m[METRIC.timeRollout]!;
  const updateS = m[METRIC.timeUpdate]!;
  const microBatches = m[METRIC.chartsMicrobatches] ?? 0;
  const step: StepFigures = {
    wallS,
    rolloutS,
    updateS,
    rollouts: m[METRIC.chartsRollouts]!,
    decodeSteps,
    decodeStepMs: decodeSteps ? (rolloutS * 1000) / decodeSteps : 0,
    microBatches,
    microBatchMs: microBatches ? (updateS * 1000) / microBatches : 0,
  };
  if (counters) {
    const rolloutEnd = start + rolloutS * 1000;
    const inRollout = (t: number) => t <= rolloutEnd;
    step.dispatches = counters.dispatchTimes.length;
    step.dispatchesRollout = counters.dispatchTimes.filter(inRollout).length;
    step.dispatchesUpdate = step.dispatches - step.dispatchesRollout;
    step.submits = counters.submitTimes.length;
    step.submitsRollout = counters.submitTimes.filter(inRollout).length;
    step.readbacks = counters.maps;
    if (decodeSteps) step.dispatchesPerDecodeStep = step.dispatchesRollout / decodeSteps;
    if (microBatches) step.dispatchesPerMicroBatch = step.dispatchesUpdate / microBatches;
  }
  const c = phases.counts;
  step.phases = { ...c, rolloutOther: (step.dispatchesRollout ?? 0) - c.prefill - c.decode,
    updateOther: (step.dispatchesUpdate ?? 0) - c.forward - c.optimizer };
  if (backend) {
    const end = poolPhase(backend, evicted);
    const rollout = rolloutPool as PoolPhaseFigures | null; // set in the callback
    step.pool = rollout
      ? { rollout, update: { ...end, evictedBuffers: end.evictedBuffers - rollout.evictedBuffers } }
      : { rollout: end, update: null };
  }
  return step;
}
