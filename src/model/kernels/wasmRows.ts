// Rows of a tensor (along its first axis) on tfjs `wasm`, copied as whole blocks of the wasm heap. A
// prefill attends over the KV-cache rows it writes, the rollout's compaction keeps its live rows, ARPO
// forks rows, and the per-head training attention (ops.ts causalAttention) takes each head's q, k, v:
// all pick rows, each one contiguous run of floats. wasm has no op for that: its gather computes an
// index per element (~36 ns each: 27 ms for 24 rows of a 448-slot cache) and a one-hot matMul through
// XNNPACK first packs the whole fresh cache (~6 ms however few rows). This kernel does what tfjs's own
// wasm Slice does for a contiguous slice — a typed-array copy on the heap, registered through
// tf.registerKernel for the `wasm` backend — once per run of consecutive rows. Exact (a copy); no
// gradient is registered (the callers are inference or write their backward out).
import * as tf from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';

const KERNEL = 'StarRows';

function rowsKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const wasm = backend as BackendWasm;
  const x = inputs.x as tf.TensorInfo;
  const rows = (attrs?.rows ?? []) as number[];
  const rowSize = tf.util.sizeFromShape(x.shape.slice(1));
  const out = wasm.makeOutput([rows.length, ...x.shape.slice(1)], x.dtype);
  // float offsets into the heap, read after the output exists (allocating may grow the heap and detach
  // older views); not readSync, which copies the whole tensor out first
  const heap = new Float32Array((wasm.wasm as unknown as { HEAPU8: Uint8Array }).HEAPU8.buffer); // the emscripten heap
  const from = wasm.dataIdMap.get(x.dataId)!.memoryOffset / 4;
  const to = wasm.dataIdMap.get(out.dataId)!.memoryOffset / 4;
  for (let i = 0; i < rows.length;) {
    let run = 1; // rows i .. i+run-1 are consecutive in x: one copy
    while (i + run < rows.length && rows[i + run] === rows[i] + run) run++;
    heap.copyWithin(to + i * rowSize, from + rows[i] * rowSize, from + (rows[i] + run) * rowSize);
    i += run;
  }
  return out;
}

let registered = false;

/** rows `rows` of x [B, …] → [R, …] on the wasm backend (the caller checks the backend and the rows) */
export function wasmRows<T extends tf.Tensor>(x: T, rows: readonly number[]): T {
  if (!registered) {
    if (!tf.getKernel(KERNEL, 'wasm')) tf.registerKernel({ kernelName: KERNEL, backendName: 'wasm', kernelFunc: rowsKernel as tf.KernelFunc });
    registered = true;
  }
  if (x.dtype !== 'float32') throw new Error(`wasmRows: float32 only, got ${x.dtype}`);
  return tf.engine().runKernel(KERNEL, { x }, { rows: rows.slice() }) as T;
}

// Writing rows into a KV cache in place. tensorScatterUpdate copies the whole cache to change a few
// rows (0.26 ms a tensor at [64, 4, 256, 16], 8 a decode step: ~10 % of it). When the cache tensor is
// the only holder of its memory, this kernel writes the fresh rows straight into it and returns that
// memory as the result, as tfjs's own wasm Reshape returns its input's (incRef on the same data id):
// the cache then swaps the result in for the old tensor and disposes that one (KVCache.replace). The
// old tensor sees the writes too, which is why nothing else may hold that memory: the caller checks.
const WRITE_KERNEL = 'StarWriteRowsInPlace';

function writeRowsKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const wasm = backend as BackendWasm;
  const x = inputs.x as tf.TensorInfo;
  const fresh = inputs.fresh as tf.TensorInfo;
  const dst = attrs?.dst as number[];
  const src = attrs?.src as number[];
  const width = attrs?.width as number;
  const heap = new Float32Array((wasm.wasm as unknown as { HEAPU8: Uint8Array }).HEAPU8.buffer);
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

/** whether x's memory can be written in place: wasm, float32, and no other tensor shares it */
export function writableInPlace(x: tf.Tensor): boolean {
  if (tf.getBackend() !== 'wasm' || x.dtype !== 'float32') return false;
  return (tf.backend() as BackendWasm).refCount(x.dataId) === 1;
}

/**
 * Writes row src[i] of fresh (viewed as [·, width]) over row dst[i] of x (viewed as [·, width]) in
 * x's own memory and returns a tensor over that memory (x's shape). Only when writableInPlace(x);
 * the caller disposes x afterwards (its values are the written ones too).
 */
export function wasmWriteRowsInPlace<T extends tf.Tensor>(x: T, fresh: tf.Tensor, dst: readonly number[], src: readonly number[], width: number): T {
  if (!writableInPlace(x)) throw new Error('wasmWriteRowsInPlace: x is shared or not a float32 wasm tensor');
  if (!tf.getKernel(WRITE_KERNEL, 'wasm')) tf.registerKernel({ kernelName: WRITE_KERNEL, backendName: 'wasm', kernelFunc: writeRowsKernel as tf.KernelFunc });
  const rowsX = x.size / width;
  const rowsFresh = fresh.size / width;
  if (dst.length !== src.length || dst.some((d) => d < 0 || d >= rowsX) || src.some((s) => s < 0 || s >= rowsFresh)) {
    throw new Error(`wasmWriteRowsInPlace: rows outside x (${rowsX}) or fresh (${rowsFresh})`);
  }
  return tf.engine().runKernel(WRITE_KERNEL, { x, fresh }, { dst: dst.slice(), src: src.slice(), width }) as T;
}
