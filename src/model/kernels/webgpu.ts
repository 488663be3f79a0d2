// Shared plumbing for the lab's fused WebGPU kernels (adamw.ts, layerNorm.ts, biasGelu.ts). Each is a tfjs
// kernel registered for the `webgpu` backend only (tf.registerKernel) whose kernelFunc runs WGSL
// programs through the backend's own WebGPUBackend.runWebGPUProgram, so the code stays on
// @tensorflow/tfjs-backend-webgpu (its buffers, pipeline cache, command batching). On every other
// backend the callers run the plain tfjs ops, which are also the reference the kernels are tested
// against. The package is only referenced by type: Node never loads it.
import * as tf from '@tensorflow/tfjs';
import type { WebGPUBackend, WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';

export type { WebGPUBackend, WebGPUProgram };

let enabled = true;

/** turn the fused kernels off (true: on, the default) — for side-by-side figures and tests */
export function setFusedKernels(on: boolean): void {
  enabled = on;
}

/** whether the fused kernels run here: the backend is webgpu and they are not turned off */
export function useFusedKernels(): boolean {
  return enabled && tf.getBackend() === 'webgpu';
}

let decodeFused = true;

/** turn the decode step's fused kernels off (kernels/decodeLinear.ts, sampleRows.ts, model/fusedDecode.ts:
 *  ~4× fewer dispatches a decode step) while keeping the others — the before/after of the GPU check */
export function setFusedDecode(on: boolean): void {
  decodeFused = on;
}

/** whether a decode step and its sampling run the fused decode kernels (webgpu, fused kernels on, decode ones on) */
export function useFusedDecode(): boolean {
  return decodeFused && useFusedKernels();
}

/** a program over a flat output of `size` elements, one thread each (workgroup 64), with extra f32
 *  uniforms; `key` names the shader (tfjs adds the input ranks and dtypes), so one pipeline serves
 *  every size */
export function elementwiseProgram(
  key: string,
  inputs: string[],
  size: number,
  uniforms: string[],
  body: string,
): WebGPUProgram {
  const workgroup = 64;
  return {
    variableNames: inputs,
    outputShape: [size],
    shaderKey: key,
    dispatchLayout: { x: [0] },
    dispatch: [Math.ceil(size / workgroup), 1, 1],
    workgroupSize: [workgroup, 1, 1],
    size: true,
    uniforms: uniforms.map((u) => `${u} : f32,`).join(' '),
    getUserCode: () => `
      fn main(index : i32) {
        if (index < uniforms.size) {
          ${body}
        }
      }`,
  };
}

/** f32 uniforms in the order of the program's `uniforms` */
export function f32Uniforms(values: number[]): { type: string; data: number[] }[] {
  return values.map((v) => ({ type: 'float32', data: [v] }));
}

/** register a kernel for webgpu once (re-registering throws in tfjs) */
export function registerWebGPUKernel(kernelName: string, kernelFunc: tf.KernelFunc): void {
  if (tf.getKernel(kernelName, 'webgpu')) return;
  tf.registerKernel({ kernelName, backendName: 'webgpu', kernelFunc });
}
