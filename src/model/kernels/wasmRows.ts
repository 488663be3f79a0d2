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

function rowsKernel({
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
    if (!tf.getKernel(KERNEL, 'wasm'))
      tf.registerKernel({ kernelName: KERNEL, backendName: 'wasm', kernelFunc: rowsKernel as tf.KernelFunc });
    registered = true;
  }
  if (x.dtype !== 'float32') throw new Error(`wasmRows: float32 only, got ${x.dtype}`);
  return tf.engine().runKernel(KERNEL, { x }, { rows: rows.slice() }) as T;
}
