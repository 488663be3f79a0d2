// The tfjs backend of a CLI run in Node: `wasm` (XNNPACK kernels; the default for anything long —
// `cpu` is 6–40× slower on these models, bench sft-cpu), `cpu` (plain JS, bit-reproducible) or
// `webgpu` (the page's WebGPU kernels through Dawn's Node bindings: nodeWebgpu.ts, loaded only then).
// `wasm` with more than one thread is tfjs's threaded SIMD build (wasmThreaded.ts); with one, the
// plain SIMD build, as before.
import * as tf from '@tensorflow/tfjs';
import { availableParallelism } from 'node:os';
import { registerThreadedWasm } from './wasmThreaded.ts';

export const NODE_BACKENDS = ['wasm', 'cpu', 'webgpu'] as const;
export type NodeBackend = (typeof NODE_BACKENDS)[number];

/** the environment variable that sets the wasm threads of a CLI process (sweep sets it per child) */
export const THREADS_ENV = 'STAR_WASM_THREADS';

/** Below this many cores the CLI stays on one thread by default: on this 2-core machine 2 threads trained
 *  the presets at 0.77–0.96× and decoded at 0.94–1.21× the speed of one (two runs) (bench model, wasm.threads.*):
 *  these models' matmuls are too small to split across a busy second core. */
export const MIN_CORES_FOR_THREADS = 4;

/** wasm threads for this process: $STAR_WASM_THREADS, else every core on a machine with at least
 *  MIN_CORES_FOR_THREADS (sweep --jobs N gives each child cores / N), else 1. The threaded build's pool holds 8. */
export function wasmThreads(): number {
  const env = process.env[THREADS_ENV];
  if (env === undefined || env === '') return defaultWasmThreads(1);
  const n = Number(env);
  if (!Number.isInteger(n) || n < 1 || n > 8)
    throw new Error(`${THREADS_ENV} needs an integer from 1 to 8, got "${env}"`);
  return n;
}

/** the default threads of each of `jobs` processes sharing this machine */
export function defaultWasmThreads(jobs: number): number {
  const cores = availableParallelism();
  return cores < MIN_CORES_FOR_THREADS ? 1 : Math.min(8, Math.max(1, Math.floor(cores / jobs)));
}

/** Starts `name`; on wasm with `threads` > 1 the threaded build. Returns the threads it runs on (1 on cpu
 *  and webgpu). The default, 1, keeps library callers (tests) on the plain build; the CLI passes wasmThreads(). */
export async function useNodeBackend(name: NodeBackend, threads = 1): Promise<number> {
  if (name === 'webgpu') {
    const { startNodeWebgpu, describeAdapter } = await import('./nodeWebgpu.ts');
    const adapter = await startNodeWebgpu();
    console.error(`webgpu on ${describeAdapter(adapter)}`);
    return 1;
  }
  if (name === 'wasm') {
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    if (threads > 1) registerThreadedWasm(threads);
    if (!(await tf.setBackend(name))) throw new Error(`the tfjs ${name} backend failed to start`);
    await tf.ready();
    return wasm.getThreadsCount();
  }
  if (!(await tf.setBackend(name))) throw new Error(`the tfjs ${name} backend failed to start`);
  await tf.ready();
  return 1;
}
