// figures.json of the GPU check (docs/gpu-check.md): what one run on a GPU machine measured, written after
// every step so that a run cut short by its time limit still leaves what it had. Pure: no tfjs, no GPU.
import type { WebgpuAdapterInfo } from '../../node/nodeWebgpu.ts';
import type { PoolStats } from '../../model/kernels/bufferPool.ts';

export const GPU_CHECK_FORMAT = 'star-lab-gpu-check/1';
export const SCALES = ['s', 'm', 'l'] as const;
export type Scale = (typeof SCALES)[number];
/** webgpu-plain: webgpu with the decode step's fused kernels off (setFusedDecode(false)): the before of the levers */
export const CHECK_BACKENDS = ['webgpu', 'wasm', 'webgpu-plain'] as const;
export type CheckBackend = (typeof CHECK_BACKENDS)[number];

/** one decode step of the rollouts measured alone (decodeProbe.ts): R rows at a fixed cache length */
export interface DecodeProbeFigures {
  rows: number;
  cacheLength: number;
  steps: number;
  /** wall ms of one decode step (Policy.step + sampleTokens, its readback awaited), mean of `steps` */
  stepMs: number;
  /** ms of that spent in synchronous JS before the readback is awaited (tfjs's engine, encoding, submits) */
  hostMs: number;
  /** the least host ms of one step: on a shared machine (or SwiftShader, whose device work takes the same
   *  cores) the figure least disturbed by others */
  hostMinMs?: number;
  /** per decode step (webgpu only) */
  dispatches?: number;
  submits?: number;
  /** ms of hostMs spent inside queue.submit (Dawn's own work; SwiftShader runs the shaders there) */
  submitMs?: number;
  readbacks?: number;
  /** tfjs programs run per decode step, by shader key (webgpu only) */
  programs?: Record<string, number>;
}

/** the decode-step probe: the levers' before (plain) and after (fused) on webgpu, wasm, and two host floors */
export interface DecodeFigures {
  scale: Scale;
  /** one mapAsync round trip of a 16-byte buffer, median ms */
  readbackMs: number | null;
  /** host µs of one tiny tfjs op on webgpu */
  opUs: number | null;
  /** each probe's runs, alternated (plain, fused, plain, fused, …) so drift hits both alike */
  plain: DecodeProbeFigures[];
  fused: DecodeProbeFigures[];
  wasm: DecodeProbeFigures[];
  /** plain ÷ fused: how many times faster (stepMs, hostMs) and fewer (dispatches) the levers make a decode step */
  stepRatio: number | null;
  hostRatio: number | null;
  dispatchRatio: number | null;
  /** wasm stepMs ÷ fused stepMs */
  fusedVsWasm: number | null;
}

/** a step's dispatches (and calls) per part, summed over the step (phaseCounts.ts) */
export interface PhaseCounts {
  prefill: number;
  prefillCalls: number;
  decode: number;
  decodeCalls: number;
  forward: number;
  forwardCalls: number;
  optimizer: number;
  optimizerCalls: number;
}

/** one RL step (rollouts + update), timed on the wall clock */
export interface StepFigures {
  wallS: number;
  rolloutS: number;
  updateS: number;
  rollouts: number;
  /** Policy.step calls (one decode step of every live row) and the rollout time over them */
  decodeSteps: number;
  decodeStepMs: number;
  /** the update's micro-batches and the update time over them */
  microBatches: number;
  microBatchMs: number;
  /** webgpu only: compute dispatches and queue submits in the step, split by phase; buffer maps (readbacks) */
  dispatches?: number;
  dispatchesRollout?: number;
  dispatchesUpdate?: number;
  submits?: number;
  submitsRollout?: number;
  readbacks?: number;
  /** the rollout's dispatches over its decode steps (prefills and sampling included), the update's over its
   * micro-batches */
  dispatchesPerDecodeStep?: number;
  dispatchesPerMicroBatch?: number;
  /** webgpu only: the dispatches split by part (phaseCounts.ts); rolloutOther is the rollouts' sampling and
   *  compaction, updateOther the update's backward pass, loss, gradient sums and norms */
  phases?: PhaseCounts & { rolloutOther: number; updateOther: number };
  /** webgpu only: tfjs's buffer pool in the rollouts and in the update (null: no update ran) */
  pool?: { rollout: PoolPhaseFigures; update: PoolPhaseFigures | null };
}

/** tfjs's webgpu buffer pool over one phase of a step (model/kernels/bufferPool.ts): the most bytes held in
 *  tensors and allocated at once, allocated at the phase's end, buffers the pool's bound destroyed in it */
export interface PoolPhaseFigures {
  peakUsedBytes: number;
  peakAllocatedBytes: number;
  allocatedBytes: number;
  evictedBuffers: number;
}

/** one scale on one backend: a first step (shader compiles, allocations), then the timed steps */
export interface BackendFigures {
  backend: CheckBackend;
  /** wasm: the XNNPACK threads */
  threads?: number;
  firstStep?: StepFigures;
  steps: StepFigures[];
  /** mean wall seconds of the timed steps (the first step's when none fitted), null before any */
  stepS: number | null;
  /** tfjs's tf.memory() after the steps (webgpu: numBytesInGPU, numBytesInGPUAllocated) */
  memory?: Record<string, number>;
  /** webgpu: the buffer pool after the steps, its bound's cap and what the bound destroyed in all */
  pool?: PoolStats;
  /** why this part stopped early or failed */
  note?: string;
  error?: string;
}

export interface ScaleFigures {
  /** the RL settings the steps ran (the lab's defaults at this scale, or the rehearsal's tiny ones) */
  setup: Record<string, number | string>;
  wasmStepS: number | null;
  webgpuStepS: number | null;
  /** wasmStepS / webgpuStepS: how many times faster webgpu is */
  webgpuSpeedup: number | null;
  dispatchesPerStep: number | null;
  submitsPerStep: number | null;
  /** the most bytes tfjs's webgpu buffer pool had allocated at once in any step, the first included */
  webgpuPeakAllocatedBytes?: number | null;
  /** the same step on webgpu with the decode levers off (when measured), and wasm ÷ it */
  webgpuPlainStepS?: number | null;
  webgpuPlainSpeedup?: number | null;
  webgpu?: BackendFigures;
  wasm?: BackendFigures;
  'webgpu-plain'?: BackendFigures;
}

export interface GpuCheckFigures {
  format: typeof GPU_CHECK_FORMAT;
  /** true once every planned part ran (or was skipped for time, with a note) */
  complete: boolean;
  rehearsal: boolean;
  startedAt: string;
  updatedAt: string;
  command: string;
  /** the commit the pack was built from (git may be absent on the GPU machine) */
  commit: string;
  /** files that differed from `commit` when its pack was built (only with --allow-dirty) */
  dirtyFiles?: { path: string; sha256: string | null }[];
  machine: { nproc: number; cpu: string; memoryGiB: number; node: string; platform: string };
  adapter: WebgpuAdapterInfo | null;
  wasmThreads: number | null;
  /** tfjs's WEBGPU_* flags as they ran (submit batching, CPU forwarding, …): the knobs the next change turns */
  webgpuFlags?: Record<string, unknown>;
  /** whether a new step's shaders were compiled at once (--compile-ahead) */
  compileAhead?: boolean;
  scales: Partial<Record<Scale, ScaleFigures>>;
  /** the decode-step probe, before the scales (--decode-steps 0 skips it) */
  decode?: DecodeFigures;
  /** the seed probe, after the decode probe (--seeds 0 skips it): S seeds in one program */
  seeds?: SeedFigures;
  /** the S-seed RL step, after the scales (--stack-seeds 0 skips it): stackStepProbe.ts */
  stack?: StackStepFigures;
  errors: string[];
}

/** a training micro-batch of the seed probe, timed: forward + backward + clip + AdamW of every seed */
export interface SeedTrainFigures {
  /** a seed's rows and tokens a row: rows·tokens tokens per seed (the RL default's micro-batch is 2,048) */
  rows: number;
  tokens: number;
  steps: number;
  /** wall ms of one micro-batch (its norms read back, as the trainer reads its loss), mean of `steps` */
  stepMs: number;
  /** ms of that in synchronous JS before the readback is awaited (on SwiftShader its device work runs there too) */
  hostMs: number;
  /** per micro-batch (webgpu only) */
  dispatches?: number;
  readbacks?: number;
}

/** one run of the seed probe (seedProbe.ts): one backend, one S, the stack or the single-seed Policy */
export interface SeedRunFigures {
  backend: 'webgpu' | 'wasm';
  /** S: seeds in the program */
  seeds: number;
  /** stack: SeedStackedPolicy (model/seedStack.ts, plain ops a decode step); policy: one Policy, the lab's
   *  path with every fused kernel (S = 1 only): the baseline a stack must beat per seed */
  model: 'stack' | 'policy';
  /** a decode step of S·rows rows (step + sampling), the decode probe's fields */
  decode?: DecodeProbeFigures;
  train?: SeedTrainFigures;
  /** an estimate, not a measurement: S / (D·decode ms + M·micro-batch ms), D and M as SeedFigures says */
  seedStepsPerS?: number | null;
  /** wall seconds the run took, compiles included */
  wallS: number;
  note?: string;
  error?: string;
}

/** the seed probe: S seeds in one program at S = 1, 4, 16 against one Policy, on webgpu and wasm */
export interface SeedFigures {
  scale: Scale;
  /** the RL step an estimate assumes for one seed: decode steps and training micro-batches (the m default's on the
   *  H200, results/gpu/2026-12-04: 148–177 decode steps of ≤ 32 rows, 5–6 micro-batches of ≤ 2,048 tokens) */
  decodeStepsPerRlStep: number;
  microBatchesPerRlStep: number;
  runs: SeedRunFigures[];
}

/** one S of the S-seed RL step probe (stackStepProbe.ts): a first step, then one timed */
export interface StackRunFigures {
  seeds: number;
  /** wall seconds of the first step (shader compiles, allocations) and of the timed step */
  firstStepS?: number;
  stepS?: number;
  /** in the timed step (webgpu): compute dispatches, the stacked decode steps run and the seeds' decode steps they
   *  served (S·… when the seeds' rollouts stay in step), the seeds' mean reward */
  dispatches?: number;
  /** of those, the update's (after the last seed's rollouts) */
  dispatchesUpdate?: number;
  decodeSteps?: number;
  seedDecodeSteps?: number;
  meanReward?: number;
  /** S ÷ stepS */
  seedStepsPerS?: number | null;
  note?: string;
  error?: string;
}

/** the S-seed RL step at S = 1, 4, 16 (the default) on webgpu: measured, not estimated */
export interface StackStepFigures {
  scale: Scale;
  runs: StackRunFigures[];
  /** one RlTrainer's timed step on webgpu at this scale (the check's own), as seed-steps per second */
  singleRunSeedStepsPerS: number | null;
  /** the largest S measured: its seed-steps per second ÷ S = 1's (the target: 6× at S = 16), and ÷ one run's */
  largestS: number | null;
  speedupOverS1: number | null;
  speedupOverSingleRun: number | null;
}

/** the stack probe's headline from its runs */
export function summarizeStack(scale: Scale, singleRunStepS: number | null, runs: StackRunFigures[]): StackStepFigures {
  for (const r of runs) r.seedStepsPerS = r.stepS ? r.seeds / r.stepS : null;
  const timed = runs.filter((r) => r.seedStepsPerS);
  const one = timed.find((r) => r.seeds === 1)?.seedStepsPerS ?? null;
  const top = timed.reduce<StackRunFigures | null>((a, r) => (!a || r.seeds > a.seeds ? r : a), null);
  const single = singleRunStepS ? 1 / singleRunStepS : null;
  return {
    scale,
    runs,
    singleRunSeedStepsPerS: single,
    largestS: top?.seeds ?? null,
    speedupOverS1: top && one ? top.seedStepsPerS! / one : null,
    speedupOverSingleRun: top && single ? top.seedStepsPerS! / single : null,
  };
}

/** S seed-steps per second from a run's decode step and micro-batch (null without both) */
export function seedStepsPerS(
  run: Pick<SeedRunFigures, 'seeds' | 'decode' | 'train'>,
  decodeSteps: number,
  microBatches: number,
): number | null {
  if (!run.decode || !run.train) return null;
  const stepMs = decodeSteps * run.decode.stepMs + microBatches * run.train.stepMs;
  return stepMs > 0 ? (run.seeds * 1000) / stepMs : null;
}

const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** the mean wall time of the timed steps, else the first step's (an upper bound, with shader compiles) */
export function backendStepS(b: BackendFigures): number | null {
  return mean(b.steps.map((s) => s.wallS)) ?? b.firstStep?.wallS ?? null;
}

/** the headline fields of a scale from its two parts */
export function summarizeScale(
  setup: ScaleFigures['setup'],
  webgpu?: BackendFigures,
  wasm?: BackendFigures,
  plain?: BackendFigures,
): ScaleFigures {
  const webgpuStepS = webgpu ? backendStepS(webgpu) : null;
  const wasmStepS = wasm ? backendStepS(wasm) : null;
  const plainStepS = plain ? backendStepS(plain) : null;
  const timed = webgpu ? (webgpu.steps.length ? webgpu.steps : webgpu.firstStep ? [webgpu.firstStep] : []) : [];
  return {
    setup,
    wasmStepS,
    webgpuStepS,
    webgpuSpeedup: wasmStepS !== null && webgpuStepS !== null && webgpuStepS > 0 ? wasmStepS / webgpuStepS : null,
    dispatchesPerStep: mean(timed.map((s) => s.dispatches ?? NaN).filter(Number.isFinite)),
    submitsPerStep: mean(timed.map((s) => s.submits ?? NaN).filter(Number.isFinite)),
    ...(webgpu ? { webgpuPeakAllocatedBytes: peakAllocated([webgpu.firstStep, ...webgpu.steps]) } : {}),
    ...(plain
      ? {
          webgpuPlainStepS: plainStepS,
          webgpuPlainSpeedup:
            wasmStepS !== null && plainStepS !== null && plainStepS > 0 ? wasmStepS / plainStepS : null,
        }
      : {}),
    ...(webgpu ? { webgpu } : {}),
    ...(wasm ? { wasm } : {}),
    ...(plain ? { 'webgpu-plain': plain } : {}),
  };
}

const peakAllocated = (steps: (StepFigures | undefined)[]): number | null => {
  const peaks = steps
    .flatMap((s) => (s?.pool ? [s.pool.rollout, s.pool.update] : []))
    .flatMap((p) => (p ? [p.peakAllocatedBytes] : []));
  return peaks.length ? Math.max(...peaks) : null;
};

/** the ratios of the decode probe from its runs */
export function summarizeDecode(
  d: Omit<DecodeFigures, 'stepRatio' | 'hostRatio' | 'dispatchRatio' | 'fusedVsWasm'>,
): DecodeFigures {
  const m = (runs: DecodeProbeFigures[], k: 'stepMs' | 'hostMs' | 'dispatches') =>
    mean(runs.map((r) => r[k] ?? NaN).filter(Number.isFinite));
  const ratio = (a: number | null, b: number | null) => (a !== null && b !== null && b > 0 ? a / b : null);
  return {
    ...d,
    stepRatio: ratio(m(d.plain, 'stepMs'), m(d.fused, 'stepMs')),
    hostRatio: ratio(m(d.plain, 'hostMs'), m(d.fused, 'hostMs')),
    dispatchRatio: ratio(m(d.plain, 'dispatches'), m(d.fused, 'dispatches')),
    fusedVsWasm: ratio(m(d.wasm, 'stepMs'), m(d.fused, 'stepMs')),
  };
}

/** Checks figures.json's shape (the lead's scripts and the next session read it): [] when sound. */
export function figuresProblems(f: unknown): string[] {
  const problems: string[] = [];
  const o = f as Partial<GpuCheckFigures> | null;
  if (!o || typeof o !== 'object') return ['not an object'];
  if (o.format !== GPU_CHECK_FORMAT) problems.push(`format is ${String(o.format)}, not ${GPU_CHECK_FORMAT}`);
  if (!('adapter' in o)) problems.push('no adapter');
  if (!o.scales || typeof o.scales !== 'object') problems.push('no scales');
  for (const [scale, s] of Object.entries(o.scales ?? {})) {
    if (!(SCALES as readonly string[]).includes(scale)) problems.push(`unknown scale ${scale}`);
    for (const k of ['wasmStepS', 'webgpuStepS', 'dispatchesPerStep'] as const) {
      const v = (s as ScaleFigures)[k];
      if (!(k in (s as object)) || (v !== null && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)))
        problems.push(`scales.${scale}.${k} is ${String(v)}`);
    }
  }
  return problems;
}
