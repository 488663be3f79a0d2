// Writing rows into a KV cache in place. tfjs's tensorScatterUpdate copies the whole cache to change a
// few rows: on wasm a memcpy (0.26 ms a tensor at [64, 4, 256, 16], 8 a decode step: ~10 % of it), on
// webgpu a Tile dispatch over the whole cache plus the scatter (16 dispatches a decode step). When the
// cache tensor is the only holder of its memory, these kernels write the fresh rows straight into it
// and return that memory as the result, the way tfjs's own Reshape returns its input's (incRef on the
// same data id): the cache then swaps the result in for the old tensor and disposes that one
// (KVCache.replace). The old tensor sees the writes too, which is why nothing else may hold that
// memory: writableInPlace checks the backend's reference count.
//   wasm: copies on the heap (one per run of rows consecutive on both sides), always on;
//   webgpu: one dispatch writing only the rows (the fresh rows' elements, a thread each), with the
//   fused kernels (setFusedKernels(false) gives the plain path, the reference in kernels.html).
import * as tf from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { registerWebGPUKernel, useFusedKernels, type WebGPUBackend, type WebGPUProgram } from './webgpu.ts';

const KERNEL = 'StarWriteRowsInPlace';

function wasmWriteRows({
  inputs,
  backend,
  attrs,
}: {
  inputs: tf.NamedTensorInfoMap;
  backend: unknown;
  attrs?: tf.NamedAttrMap;
}): tf.TensorInfo {
  const wasm = backend as BackendWasm;
  const x = inputs.x as tf.TensorInfo;
  const fresh = inputs.fresh as tf.TensorInfo;
  const { dst, src, width } = attrs as { dst: number[]; src: number[]; width: number };
  const heap = new Float32Array((wasm.wasm as unknown as { HEAPU8: Uint8Array }).HEAPU8.buffer); // the emscripten heap
  const to = wasm.dataIdMap.get(x.dataId)!.memoryOffset / 4;
  const from = wasm.dataIdMap.get(fresh.dataId)!.memoryOffset / 4;
  for (let i = 0; i < dst.length;) {
    let run = 1; // rows consecutive on both sides (a prefill's tokens of one head): one copy
    while (i + run < dst.length && dst[i + run] === dst[i] + run && src[i + run] === src[i] + run) run++;
    heap.copyWithin(to + dst[i] * width, from + src[i] * width, from + (src[i] + run) * width);
    i += run;
  }
  wasm.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
}

/** result[dst[r]·W + c] = Fresh[src[r]·W + c] for the M·W elements written, nothing else touched */
function webgpuProgram(elements: number): WebGPUProgram {
  return {
    variableNames: ['Fresh', 'Dst', 'Src'],
    outputShape: [elements],
    shaderKey: 'star_write_rows',
    dispatchLayout: { x: [0] },
    dispatch: [Math.ceil(elements / 64), 1, 1],
    workgroupSize: [64, 1, 1],
    uniforms: 'elements : i32, width : i32,',
    getUserCode: () => `
      fn main(index : i32) {
        if (index >= uniforms.elements) { return; }
        let r = index / uniforms.width;
        let c = index % uniforms.width;
        result[i32(Dst[r]) * uniforms.width + c] = Fresh[i32(Src[r]) * uniforms.width + c];
      }`,
  };
}

tf.registerKernel({ kernelName: KERNEL, backendName: 'wasm', kernelFunc: wasmWriteRows as tf.KernelFunc });
registerWebGPUKernel(KERNEL, ({ inputs, backend, attrs }) => {
  const webgpu = backend as WebGPUBackend;
  const x = inputs.x as tf.TensorInfo;
  const { dst, src, width } = attrs as unknown as { dst: number[]; src: number[]; width: number };
  const elements = dst.length * width;
  // row numbers as float32 (exact below 2^24), uploaded with the call
  const dstT = webgpu.makeTensorInfo([dst.length], 'float32', Float32Array.from(dst));
  const srcT = webgpu.makeTensorInfo([src.length], 'float32', Float32Array.from(src));
  webgpu.runWebGPUProgram(webgpuProgram(elements), [inputs.fresh as tf.TensorInfo, dstT, srcT], 'float32',
    [{ type: 'int32', data: [elements] }, { type: 'int32', data: [width] }], x); // x is the output: written in place
  webgpu.disposeData(dstT.dataId);
  webgpu.disposeData(srcT.dataId);
  webgpu.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
});

// the same write with the row lists as tensors the caller made once: a decode step writes every layer's keys
// (and values) at the same rows, so model/fusedDecode.ts uploads its lists once a step instead of 2 a write
registerWebGPUKernel(`${KERNEL}Indexed`, ({ inputs, backend }) => {
  const webgpu = backend as WebGPUBackend;
  const { x, fresh, dst, src } = inputs as Record<string, tf.TensorInfo>;
  const width = fresh.shape[fresh.shape.length - 1];
  const elements = dst.shape[0] * width;
  webgpu.runWebGPUProgram(webgpuProgram(elements), [fresh, dst, src], 'float32',
    [{ type: 'int32', data: [elements] }, { type: 'int32', data: [width] }], x);
  webgpu.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
});

/** writeRowsInPlace on webgpu with the row lists given as float32 tensors dst, src [M] (rows of width
 *  fresh.shape[last]; checked by the caller against x's and fresh's rows). Only when writableInPlace(x). */
export function writeRowsInPlaceIndexed<T extends tf.Tensor>(
  x: T,
  fresh: tf.Tensor,
  dst: tf.Tensor1D,
  src: tf.Tensor1D,
): T {
  if (!writableInPlace(x) || tf.getBackend() !== 'webgpu')
    throw new Error('writeRowsInPlaceIndexed: x is shared, or not float32 on webgpu');
  if (dst.shape[0] !== src.shape[0] || dst.dtype !== 'float32' || src.dtype !== 'float32')
    throw new Error('writeRowsInPlaceIndexed: dst and src must be float32 lists of one length');
  return tf.engine().runKernel(`${KERNEL}Indexed`, { x, fresh, dst, src }) as T;
}

/** whether x's memory can be written in place here: wasm, or webgpu with the fused kernels; float32;
 *  and no other tensor shares the memory */
export function writableInPlace(x: tf.Tensor): boolean {
  const backend = tf.getBackend();
  if (x.dtype !== 'float32' || !(backend === 'wasm' || (backend === 'webgpu' && useFusedKernels()))) return false;
  return tf.backend().refCount(x.dataId) === 1;
}

/**
 * Writes row src[i] of fresh (viewed as [·, width]) over row dst[i] of x (viewed as [·, width]) in
 * x's own memory and returns a tensor over that memory (x's shape). Only when writableInPlace(x);
 * the caller disposes x afterwards (its values are the written ones too).
 */
export function writeRowsInPlace<T extends tf.Tensor>(
  x: T,
  fresh: tf.Tensor,
  dst: readonly number[],
  src: readonly number[],
  width: number,
): T {
  if (!writableInPlace(x)) throw new Error('writeRowsInPlace: x is shared, or not float32 on wasm / webgpu');
  const rowsX = x.size / width;
  const rowsFresh = fresh.size / width;
  if (dst.length !== src.length || dst.some((d) => d < 0 || d >= rowsX) || src.some((s) => s < 0 || s >= rowsFresh)) {
    throw new Error(`writeRowsInPlace: rows outside x (${rowsX}) or fresh (${rowsFresh})`);
  }
  return tf.engine().runKernel(KERNEL, { x, fresh }, { dst: dst.slice(), src: src.slice(), width }) as T;
}
