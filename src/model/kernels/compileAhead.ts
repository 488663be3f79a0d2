// Parallel shader compilation for a step's first run on `webgpu`. By default tfjs compiles each new
// program the moment it first runs (createComputePipeline: the GPU process compiles them one after
// another while the step waits on each). With its WEBGPU_ENGINE_COMPILE_ONLY flag set, running the
// step's ops only creates their pipelines with createComputePipelineAsync (nothing is recorded or
// submitted); checkCompileCompletionAsync then waits once for all of them, which the browser may
// compile in parallel. The real step afterwards finds every pipeline in tfjs's cache.
// Off by default: on SwiftShader (the only adapter measured so far) three side-by-side runs gave 0.89×,
// 1.09× and 0.93× the first-step time of one-by-one compilation (bench: webgpu.first_step_speedup.ahead),
// i.e. no gain, and it costs one extra graph build per new batch length. Measure on a GPU, then turn on.
import * as tf from '@tensorflow/tfjs';
import type { WebGPUBackend } from './webgpu.ts';

let enabled = false;

/** turn compile-ahead on (false: off, the default) — for side-by-side figures and checks */
export function setCompileAhead(on: boolean): void {
  enabled = on;
}

/**
 * On webgpu, runs `build` in tfjs's compile-only mode inside tf.tidy, then waits for every pipeline it
 * created. `build` must only build tensors: the values it computes are garbage (no program runs), so
 * it must not read data back or assign to variables. Elsewhere (or when off) it does nothing.
 * Best effort: if building fails, the step compiles its shaders as it runs, as without this.
 */
export async function compileAhead(build: () => void): Promise<void> {
  if (!enabled || tf.getBackend() !== 'webgpu') return;
  const env = tf.env();
  env.set('WEBGPU_ENGINE_COMPILE_ONLY', true);
  try {
    tf.tidy(build);
  } catch (e) {
    console.warn(`compileAhead: shaders will compile as the step runs (${e instanceof Error ? e.message : String(e)})`);
  } finally {
    env.set('WEBGPU_ENGINE_COMPILE_ONLY', false);
  }
  await (tf.backend() as unknown as WebGPUBackend).checkCompileCompletionAsync();
}
