// Attention over the KV cache while decoding (Policy.step and Policy.prefill, the seed stack's decode): inference
// only, never differentiated, so it can use whichever op is fastest on the backend instead of the training path's
// gradient-friendly pieces. Which ones is a CacheKernels record that attentionPath.ts picks with the path. Each
// choice was measured on tfjs `wasm` at the rollout's shapes (batch 64, 4 heads, hd 16, cap 256–320;
// bench/rollout.ts):
//   - the ALiBi bias built by broadcasting [R,1,n,cap]·[1,H,1,1] instead of tiling the mask to every
//     head first: 3 ms instead of 16 ms per decode step;
//   - the backend's own softmax kernel (wasm, webgpu): 2 ms instead of 4.5 ms per layer and step. On
//     `cpu` a broadcasting softmax is ~10× slower (ops.ts), so cpu keeps softmaxLast;
//   - q, k, v from three matMuls on slices of W_qkv, not a split of one [R·n, 3C] product (cachedQkv);
//   - on wasm, q·kᵀ and p·v by a WebAssembly SIMD kernel (kernels/wasmAttentionMatMul.ts) that gives
//     tf.matMul's floats bit for bit: tfjs-wasm runs a batched matMul as a scalar loop, which was ~60 %
//     of a decode step and ~75 % of a prefill.
import * as tf from '@tensorflow/tfjs';
import { alibiSlopes, type ModelConfig } from './config.ts';
import { softmaxLast } from './ops.ts';
import { wasmAttentionMatMul } from './kernels/wasmAttentionMatMul.ts';
import { decodeAttention, DECODE_ATTENTION_MAX_SLOTS, type DecodePositions } from './kernels/decodeAttention.ts';

/** the additive mask for a slot a query may not see: finite, so a fully masked row stays NaN-free */
export const MASKED = -1e9;

/**
 * Bias over cache slots for queries at positions `pos` (row-major [R, n]): MASKED where slot > pos (the
 * future, or another sequence's stale slots), plus under ALiBi −m_h·(pos − slot) → [R, H, n, cap].
 * slot − pos is filled in on the CPU (a broadcasting int32 subtraction costs wasm ~17 ms at [24, 50, 320]).
 */
export function cachedAttentionBias(
  config: ModelConfig,
  pos: Int32Array,
  R: number,
  n: number,
  cap: number,
): tf.Tensor4D {
  const H = config.nHeads;
  const ahead = new Float32Array(R * n * cap); // slot − pos
  const mask = new Float32Array(R * n * cap);
  for (let q = 0; q < R * n; q++) {
    const p = pos[q];
    for (let s = 0, o = q * cap; s < cap; s++, o++) {
      ahead[o] = s - p;
      if (s > p) mask[o] = MASKED;
    }
  }
  const maskT = tf.tensor4d(mask, [R, 1, n, cap]);
  if (config.positions !== 'alibi') return maskT.add(tf.zeros([1, H, 1, 1]));
  // −m_h·(pos − slot) = m_h·(slot − pos): one broadcasting multiply makes every head's bias
  return tf
    .tensor4d(ahead, [R, 1, n, cap])
    .mul(tf.tensor(alibiSlopes(H), [1, H, 1, 1]))
    .add(maskT) as tf.Tensor4D; // [R, H, n, cap]
}

/** How the cached attention runs on one backend. attentionPath.ts picks the record with the path; nothing here
 *  asks which backend it runs on. */
export interface CacheKernels {
  /** q, k, v by three matMuls on column slices of W_qkv (wasm: its split of the activations cost more than the
   *  two extra XNNPACK matMuls), else one [R·n, 3C] product then split (6 dispatches a layer fewer on webgpu) */
  readonly qkvSlices: boolean;
  /** how a qkv product splits into q, k, v: a 5-D transpose then contiguous slices (cpu: its split and strided
   *  slice are slow), or tf.split */
  readonly split: 'unstack' | 'split';
  /** softmax over the last axis: softmaxLast on cpu (a broadcasting softmax is ~10× slower there), else the
   *  backend's own kernel */
  readonly softmax: (scores: tf.Tensor4D) => tf.Tensor4D;
  /** on wasm the SIMD kernel for q·kᵀ and p·v (the same floats as tf.matMul; null from it: tf.matMul runs) */
  readonly headsMatMul: typeof wasmAttentionMatMul | null;
}

export const WASM_CACHE: CacheKernels = {
  qkvSlices: true,
  split: 'split',
  softmax: (scores) => tf.softmax(scores) as tf.Tensor4D,
  headsMatMul: wasmAttentionMatMul,
};
export const CPU_CACHE: CacheKernels = { ...WASM_CACHE, qkvSlices: false, split: 'unstack', softmax: softmaxLast,
  headsMatMul: null };
/** webgpu and any other backend */
export const PLAIN_CACHE: CacheKernels = { ...WASM_CACHE, qkvSlices: false, headsMatMul: null };

/** x [R, n, C] → q, k, v [R, H, n, hd] each, from W_qkv [C, 3C] and b [3C] */
export function cachedQkv(
  x: tf.Tensor3D,
  w: tf.Tensor,
  b: tf.Tensor,
  H: number,
  kernels: CacheKernels,
): [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D] {
  const [R, n, C] = x.shape;
  const rows = x.reshape([R * n, C]);
  if (!kernels.qkvSlices) return splitQkv(tf.matMul(rows, w).add(b).reshape([R, n, 3 * C]), H, kernels);
  const part = (j: number) =>
    tf
      .matMul(rows, w.slice([0, j * C], [C, C]))
      .add(b.slice([j * C], [C])) // [R·n, C]
      .reshape([R, n, H, C / H])
      .transpose([0, 2, 1, 3]) as tf.Tensor4D; // [R, H, n, hd]
  return [part(0), part(1), part(2)];
}

/** qkv [R, n, 3C] → q, k, v [R, H, n, hd] each */
export function splitQkv(qkv: tf.Tensor3D, H: number, kernels: CacheKernels): [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D] {
  const [R, n, C3] = qkv.shape;
  const hd = C3 / 3 / H;
  if (kernels.split === 'unstack')
    return tf.unstack(qkv.reshape([R, n, 3, H, hd]).transpose([2, 0, 3, 1, 4]), 0) as [
      tf.Tensor4D,
      tf.Tensor4D,
      tf.Tensor4D,
    ];
  return tf.split(qkv.reshape([R, n, 3 * H, hd]).transpose([0, 2, 1, 3]), 3, 1) as [
    tf.Tensor4D,
    tf.Tensor4D,
    tf.Tensor4D,
  ]; // [R, H, n, hd] each
}

/** a decode step's query positions for the decode attention kernel, or null past its slot limit */
export function decodePositions(config: ModelConfig, pos: Int32Array, cap: number): DecodePositions | null {
  if (cap > DECODE_ATTENTION_MAX_SLOTS) return null;
  const H = config.nHeads;
  return {
    pos: tf.tensor1d(Float32Array.from(pos)),
    slopes: tf.tensor1d(config.positions === 'alibi' ? alibiSlopes(H) : new Array<number>(H).fill(0)),
  };
}

/** q [R,H,n,hd] (unscaled), keys/values [R,H,cap,hd], bias [R,H,n,cap] (or a decode step's positions,
 *  for the decode attention kernel) → [R, n, H·hd] */
export function attendCached(
  q: tf.Tensor4D,
  keys: tf.Tensor4D,
  values: tf.Tensor4D,
  bias: tf.Tensor4D | DecodePositions,
  scale: number,
  kernels: CacheKernels,
): tf.Tensor3D {
  if (!(bias instanceof tf.Tensor)) return decodeAttention(q, keys, values, bias, scale);
  const [R, H, n, hd] = q.shape;
  const scores = headsMatMul(q.mul(scale) as tf.Tensor4D, keys, true, kernels).add(bias) as tf.Tensor4D; // [R, H, n, cap]
  const p = kernels.softmax(scores); // [R, H, n, cap]
  return headsMatMul(p, values, false, kernels)
    .transpose([0, 2, 1, 3])
    .reshape([R, n, H * hd]) as tf.Tensor3D; // [R, n, C]
}

/** a [R, H, n, k] · b [R, H, k, m] (bᵀ: b [R, H, m, k]) → [R, H, n, m] */
function headsMatMul(a: tf.Tensor4D, b: tf.Tensor4D, transposeB: boolean, kernels: CacheKernels): tf.Tensor4D {
  const [R, H, n] = a.shape;
  const flat = (x: tf.Tensor4D) => x.reshape([R * H, x.shape[2], x.shape[3]]) as tf.Tensor3D;
  // the [R·H, …] views only where a kernel may take them: otherwise straight to tf.matMul
  const fast = kernels.headsMatMul?.(flat(a), flat(b), transposeB) ?? null;
  return (fast ? fast.reshape([R, H, n, fast.shape[2]]) : tf.matMul(a, b, false, transposeB)) as tf.Tensor4D;
}
