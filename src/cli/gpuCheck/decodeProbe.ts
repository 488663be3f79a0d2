// Where a decode step's time goes on webgpu: a decode step of the rollouts (Policy.step of R
// rows, then sampleTokens) at a fixed cache length, timed and counted: dispatches (Dawn's
// dispatchWorkgroups), readbacks (mapAsync), submits, each tfjs program by its shader key, the host's
// share (the synchronous JS of step + sample, before the readback is awaited), and two host costs that
// set a floor under any decode step: one readback of a tiny buffer (Dawn's mapAsync round trip) and one
// tiny tfjs op. Host time is what a GPU does not change, so SwiftShader shows it as a GPU would (its
// device time it does not). Used by `gpu-check --run` (the `decode` figures) and
// scripts/profileDecodeStep.ts.
import * as tf from '@tensorflow/tfjs';
import type { Policy } from '../../model/transformer.ts';
import { sampleTokens } from '../../model/sampling.ts';
import { Rng } from '../../env/random.ts';
import { onRawDispatch } from '../../model/kernels/rawDispatch.ts';
import type { DecodeProbeFigures } from './figures.ts';

/** Counts Dawn's dispatches, submits and buffer maps; wraps Dawn's own prototypes once per process. */
export class DawnCounters {
  dispatchTimes: number[] = [];
  submitTimes: number[] = [];
  maps = 0;
  /** ms spent inside queue.submit (on SwiftShader it runs the work; on a GPU it should be short) */
  submitMs = 0;
  private static installed: DawnCounters | null = null;

  static install(): DawnCounters {
    if (DawnCounters.installed) return DawnCounters.installed;
    const counters = new DawnCounters();
    const g = globalThis as unknown as Record<
      string,
      { prototype: Record<string, (...a: unknown[]) => unknown> } | undefined
    >;
    const wrap = (cls: string, method: string, count: () => void, timed?: (ms: number) => void) => {
      const proto = g[cls]?.prototype;
      if (!proto || typeof proto[method] !== 'function') throw new Error(`Dawn has no ${cls}.${method} to count`);
      const original = proto[method];
      proto[method] = timed
        ? function (this: unknown, ...args: unknown[]) {
            count();
            const t0 = performance.now();
            try {
              return original.apply(this, args);
            } finally {
              timed(performance.now() - t0);
            }
          }
        : function (this: unknown, ...args: unknown[]) {
            count();
            return original.apply(this, args);
          };
    };
    wrap('GPUComputePassEncoder', 'dispatchWorkgroups', () => counters.dispatchTimes.push(performance.now()));
    wrap(
      'GPUQueue',
      'submit',
      () => counters.submitTimes.push(performance.now()),
      (ms) => {
        counters.submitMs += ms;
      },
    );
    wrap('GPUBuffer', 'mapAsync', () => counters.maps++);
    DawnCounters.installed = counters;
    return counters;
  }

  reset(): void { this.dispatchTimes = []; this.submitTimes = []; this.maps = 0; this.submitMs = 0; }
}

/** one tfjs program counter on the webgpu backend: runWebGPUProgram wrapped once */
let programCounts: Record<string, number> | null = null;
function countPrograms(): Record<string, number> {
  if (programCounts) return programCounts;
  const backend = tf.backend() as unknown as {
    runWebGPUProgram: (program: { shaderKey?: string; constructor: { name: string } }, ...a: unknown[]) => unknown;
  };
  const original = backend.runWebGPUProgram.bind(backend);
  const counts: Record<string, number> = {};
  backend.runWebGPUProgram = (program, ...a) => {
    const key = (program.constructor.name !== 'Object' ? program.constructor.name : program.shaderKey) ?? 'unnamed';
    counts[key] = (counts[key] ?? 0) + 1;
    return original(program, ...a);
  };
  onRawDispatch((key) => (counts[key] = (counts[key] ?? 0) + 1));
  programCounts = counts;
  return counts;
}

/** what the probe decodes with: a Policy, or anything with its decoding methods (the seed probe's stack) */
export type DecodingModel = Pick<Policy, 'config' | 'newCache' | 'prefill' | 'step'>;

/**
 * `steps` decode steps of `rows` rows whose cache holds `cacheLength` tokens (a rollout's middle), after
 * `warm` untimed ones (shader compiles). Every row stays active; the tokens are the policy's own samples.
 */
export async function probeDecodeStep(
  policy: DecodingModel,
  o: { rows: number; cacheLength: number; steps: number; warm: number; counters: DawnCounters | null; seed?: number },
): Promise<DecodeProbeFigures> {
  const { rows: R, cacheLength, steps, warm } = o;
  const V = policy.config.vocabSize;
  const rng = new Rng(o.seed ?? 7);
  const cache = policy.newCache(R);
  const webgpu = tf.getBackend() === 'webgpu';
  const programs = webgpu ? countPrograms() : null;
  try {
    policy.prefill(
      cache,
      Array.from({ length: R }, (_, b) => b),
      Array.from({ length: R }, () => Array.from({ length: cacheLength }, () => 1 + rng.int(V - 1))),
    );
    let last = Array.from({ length: R }, () => 1 + rng.int(V - 1));
    let hostMs = 0;
    let hostMinMs = Infinity;
    const one = async () => {
      const t0 = performance.now();
      const logits = policy.step(cache, last);
      const sampled = sampleTokens(logits, 1, rng, false);
      const host = performance.now() - t0;
      hostMs += host;
      hostMinMs = Math.min(hostMinMs, host);
      const out = await sampled;
      logits.dispose();
      last = Array.from(out.ids);
    };
    for (let i = 0; i < warm; i++) await one();
    o.counters?.reset();
    if (programs) for (const k of Object.keys(programs)) delete programs[k];
    hostMs = 0;
    hostMinMs = Infinity;
    const t0 = performance.now();
    for (let i = 0; i < steps; i++) await one();
    const stepMs = (performance.now() - t0) / steps;
    const f: DecodeProbeFigures = { rows: R, cacheLength, steps, stepMs, hostMs: hostMs / steps, hostMinMs };
    if (o.counters) {
      f.dispatches = o.counters.dispatchTimes.length / steps;
      f.submits = o.counters.submitTimes.length / steps;
      f.readbacks = o.counters.maps / steps;
      f.submitMs = o.counters.submitMs / steps;
    }
    if (programs)
      f.programs = Object.fromEntries(
        Object.entries(programs)
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => [k, n / steps]),
      );
    return f;
  } finally {
    cache.dispose();
  }
}

/** ms of one mapAsync round trip of a 16-byte buffer (copy in, map, read), median of `n`: the least a readback costs */
export async function probeReadbackMs(device: GPUDevice, n: number): Promise<number> {
  const src = device.createBuffer({
    size: 16,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
  });
  const dst = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const times: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      device.queue.writeBuffer(src, 0, new Float32Array([i, 1, 2, 3]));
      const enc = device.createCommandEncoder();
      enc.copyBufferToBuffer(src, 0, dst, 0, 16);
      device.queue.submit([enc.finish()]);
      await dst.mapAsync(GPUMapMode.READ);
      const got = new Float32Array(dst.getMappedRange())[0];
      dst.unmap();
      if (got !== i) throw new Error(`probeReadbackMs: read ${got}, wrote ${i}`);
      times.push(performance.now() - t0);
    }
  } finally {
    src.destroy();
    dst.destroy();
  }
  return median(times);
}

/** µs of host time one tiny tfjs op costs (an add of two [1, 4] tensors; no readback), mean of `n` */
export async function probeOpUs(n: number): Promise<number> {
  const a = tf.tensor2d([[1, 2, 3, 4]]);
  const b = tf.tensor2d([[4, 3, 2, 1]]);
  try {
    for (let i = 0; i < 20; i++) tf.tidy(() => a.add(b)); // the shader's compile
    await a.add(b).data();
    const t0 = performance.now();
    tf.tidy(() => { let x: tf.Tensor = a; for (let i = 0; i < n; i++) x = x.add(b); return x; }).dispose();
    return ((performance.now() - t0) * 1000) / n;
  } finally {
    tf.dispose([a, b]);
  }
}

function median(xs: number[]): number {
  const s = xs.slice().sort((p, q) => p - q);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
}
