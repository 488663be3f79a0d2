// Elementwise pieces of the model, written for speed on tfjs `cpu` and exact gradients everywhere.
import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../env/random.ts';
import { wasmRows } from './kernels/wasmRows.ts';
import {
  isCausalBias,
  trainingAttentionAvailable,
  trainingAttentionBackward,
  trainingAttentionForward,
} from './kernels/wasmTrainingAttention.ts';

// Softmax and log-softmax over the last axis, written so no op broadcasts a [N, 1] column across
// [N, K]: tfjs `cpu` runs such broadcasts ~10× slower than same-shape ops, which made tf.softmax the
// costliest kernel of a prefill. Columns are expanded with a [N,1]·[1,K] matMul instead, and the
// gradients are given in closed form (no gradient through the max, which cancels anyway).
const softmaxRows = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
  const K = x.shape[1] as number;
  const ones = tf.ones([1, K]);
  const e = tf.exp(x.sub(tf.matMul(tf.max(x, -1, true), ones))); // [N, K]
  const y = e.div(tf.matMul(e.sum(-1, true), ones)); // [N, K]
  save([y]);
  return {
    value: y,
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => softmaxRowsBackward(dy, saved[0]),
  };
}) as CustomGradFn);

const logSoftmaxRows = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
  const K = x.shape[1] as number;
  const ones = tf.ones([1, K]);
  const shifted = x.sub(tf.matMul(tf.max(x, -1, true), ones)); // [N, K]
  const y = shifted.sub(tf.matMul(tf.log(tf.exp(shifted).sum(-1, true)), ones)); // [N, K]
  save([y]);
  return {
    value: y,
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) =>
      dy.sub(tf.exp(saved[0]).mul(tf.matMul(dy.sum(-1, true), tf.ones([1, K])))), // dy − softmax·Σ dy
  };
}) as CustomGradFn);
type CustomGradFn = Parameters<typeof tf.customGrad>[0];

/** gradient of y = softmax(x) over rows of [N, K]: y ⊙ (dy − Σ dy·y) */
function softmaxRowsBackward(dy: tf.Tensor, y: tf.Tensor): tf.Tensor {
  return dy.sub(tf.matMul(dy.mul(y).sum(-1, true), tf.ones([1, y.shape[1] as number]))).mul(y);
}

// tfjs `wasm` runs a BatchMatMul through XNNPACK only when neither operand is transposed and there is
// no batch dimension; a transpose flag falls back to a naive loop (measured at [2432,64]ᵀ·[2432,256]:
// 35 ms with transposeA vs 2.8 ms for an explicit transpose then a plain matMul). tfjs's own matMul
// gradient uses those flags (dA = dY·Bᵀ, dB = Aᵀ·dY), so on wasm the transposes are materialised first.
// On other backends the flags are passed through (cpu is as fast or faster with them).
function matMulT(a: tf.Tensor, b: tf.Tensor, transposeA: boolean, transposeB: boolean): tf.Tensor {
  if (tf.getBackend() !== 'wasm' || (!transposeA && !transposeB)) return tf.matMul(a, b, transposeA, transposeB);
  if (transposeA && !transposeB) {
    // Aᵀ·B = (Bᵀ·A)ᵀ: transpose whichever is smaller (attention's Pᵀ·dY: P is [T, T], dY [T, hd])
    const outSize = a.shape[a.rank - 1] * b.shape[b.rank - 1];
    if (a.size > b.size + outSize) return swapLastTwo(tf.matMul(swapLastTwo(b), a));
  }
  return tf.matMul(transposeA ? swapLastTwo(a) : a, transposeB ? swapLastTwo(b) : b);
}

function swapLastTwo(x: tf.Tensor): tf.Tensor {
  const perm = x.shape.map((_, i) => i);
  [perm[x.rank - 2], perm[x.rank - 1]] = [perm[x.rank - 1], perm[x.rank - 2]];
  return tf.transpose(x, perm);
}

/** a·b, either optionally transposed, for operands of equal rank (batch dimensions equal, no
 *  broadcasting): the values of tf.matMul, with a backward that stays on wasm's fast path (matMulT) */
export function matMul<T extends tf.Tensor>(a: T, b: tf.Tensor, transposeA = false, transposeB = false): T {
  if (a.rank !== b.rank || a.rank < 2)
    throw new Error(`matMul: operands of rank ${a.rank} and ${b.rank}; need equal ranks ≥ 2`);
  const product = tf.customGrad(((x: tf.Tensor, y: tf.Tensor, save: tf.GradSaveFunc) => {
    save([x, y]);
    return {
      value: matMulT(x, y, transposeA, transposeB),
      // the four cases of tfjs's BatchMatMul gradient
      gradFunc: (dy: tf.Tensor, [xs, ys]: tf.Tensor[]) => {
        if (!transposeA && !transposeB) return [matMulT(dy, ys, false, true), matMulT(xs, dy, true, false)];
        if (!transposeA) return [matMulT(dy, ys, false, false), matMulT(dy, xs, true, false)];
        if (!transposeB) return [matMulT(ys, dy, false, true), matMulT(xs, dy, false, false)];
        return [matMulT(ys, dy, true, true), matMulT(dy, xs, true, true)];
      },
    };
  }) as CustomGradFn);
  return product(a, b) as T;
}

let fusedAttention = true;
/** turns the training attention's wasm kernel (kernels/wasmTrainingAttention.ts) off (the per-head plain ops, as
 *  before it) or on again: for side-by-side measurement (bench/rlUpdate.ts) */
export function setTrainingAttentionKernel(on: boolean): void {
  fusedAttention = on;
}

/**
 * Causal attention over whole sequences, one head at a time. heads [B, 3H, T, hd] holds each row's H
 * query heads, then H key heads, then H value heads; bias [T, T] is the additive causal mask; q is
 * scaled by `scale` → y [B, H, T, hd]. tfjs `wasm` runs a batched matMul as a naive loop (~1.7
 * GFLOP/s) but a 2-D one through XNNPACK (~20× faster), and its slice/unstack copy the whole input per
 * piece, so heads are taken with gather and the backward is written out. No [B, H, T, T] tensor is
 * built: each head keeps its own [T, T] probabilities for the backward.
 *   S = q·kᵀ + bias, P = softmax(S), y = P·v
 *   dv = Pᵀ·dy, dP = dy·vᵀ, dS = P ⊙ (dP − Σ dP⊙P), dq = dS·k, dk = dSᵀ·q
 */
export function causalAttention(
  heads: tf.Tensor4D,
  H: number,
  bias: tf.Tensor2D | readonly tf.Tensor2D[],
  scale: number,
): tf.Tensor4D {
  const [B, threeH, T, hd] = heads.shape;
  if (threeH !== 3 * H) throw new Error(`causalAttention: ${threeH} heads, expected 3·${H}`);
  const N = B * H;
  const wasm = tf.getBackend() === 'wasm';
  const biases = Array.isArray(bias) ? bias : [bias as tf.Tensor2D];
  if (wasm && fusedAttention && trainingAttentionAvailable(hd, scale) && biases.every(isCausalBias))
    return fusedCausalAttention(heads, H, biases, scale);
  // head j = (b, h): its q, k, v are rows b·3H + h, + H, + 2H of heads viewed as [B·3H, T·hd]
  const row = (j: number, part: number) => Math.floor(j / H) * 3 * H + part * H + (j % H);
  const take = (flat: tf.Tensor, r: number) => takeRows(flat, [r]).reshape([T, hd]); // [T, hd]
  const attend = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const flat = x.reshape([B * threeH, T * hd]);
    const ps: tf.Tensor[] = []; // N × [T, T]
    const ys = Array.from({ length: N }, (_, j) =>
      tf.tidy(() => {
        const b = Array.isArray(bias) ? bias[j % H] : (bias as tf.Tensor2D); // one bias for all heads, or one per head (ALiBi)
        const scores = matMulT(take(flat, row(j, 0)).mul(scale), take(flat, row(j, 1)), false, true).add(b); // [T, T]
        const p = tf.keep(softmaxRows(scores));
        ps.push(p);
        return tf.matMul(p, take(flat, row(j, 2))); // [T, hd]
      }),
    );
    const y = tf.stack(ys).reshape([B, H, T, hd]);
    save([x, ...ps]);
    tf.dispose([...ys, ...ps]);
    return {
      value: y,
      gradFunc: (dy: tf.Tensor, [xs, ...saved]: tf.Tensor[]) => {
        const xFlat = xs.reshape([B * threeH, T * hd]);
        const dyFlat = dy.reshape([N, T * hd]);
        const parts = Array.from({ length: N }, (_, j) =>
          tf.tidy(() => {
            const [q, k, v, dyj, p] = [
              take(xFlat, row(j, 0)).mul(scale),
              take(xFlat, row(j, 1)),
              take(xFlat, row(j, 2)),
              take(dyFlat, j),
              saved[j],
            ];
            const dS = softmaxRowsBackward(matMulT(dyj, v, false, true), p); // [T, T]
            return [tf.matMul(dS, k).mul(scale), matMulT(dS, q, true, false), matMulT(p, dyj, true, false)]; // dq, dk, dv [T, hd]
          }),
        );
        // back to the layout of `heads`: per row b, its H dq, then H dk, then H dv
        const order: tf.Tensor[] = [];
        for (let b = 0; b < B; b++)
          for (let part = 0; part < 3; part++) for (let h = 0; h < H; h++) order.push(parts[b * H + h][part]);
        const dx = tf.stack(order).reshape([B, threeH, T, hd]);
        tf.dispose(parts.flat());
        return dx;
      },
    };
  }) as CustomGradFn);
  return attend(heads) as tf.Tensor4D;
}

/** causalAttention through the fused wasm kernels (kernels/wasmTrainingAttention.ts): T padded to a multiple
 *  of 4 (the padded keys come after every real query, so causally unseen; padded queries' rows are cut off,
 *  and their zero gradient adds nothing), the probabilities kept for the backward as the plain path does */
function fusedCausalAttention(
  heads: tf.Tensor4D,
  H: number,
  biases: readonly tf.Tensor2D[],
  scale: number,
): tf.Tensor4D {
  const [B, , T, hd] = heads.shape;
  const pad = (4 - (T % 4)) % 4;
  const x = pad
    ? tf.pad(heads, [
        [0, 0],
        [0, 0],
        [0, pad],
        [0, 0],
      ])
    : heads; // [B, 3H, Tp, hd]
  const b = pad
    ? biases.map((m) =>
        tf.pad(m, [
          [0, pad],
          [0, pad],
        ]),
      )
    : biases; // [Tp, Tp] each
  const attend = tf.customGrad(((input: tf.Tensor, save: tf.GradSaveFunc) => {
    const [y, p] = trainingAttentionForward(input as tf.Tensor4D, b, scale); // [B, H, Tp, hd], [B·H, Tp, Tp]
    save([input, p]);
    p.dispose(); // save keeps its own reference (as the per-head path's ps)
    return {
      value: y,
      gradFunc: (dy: tf.Tensor, [xs, ps]: tf.Tensor[]) => trainingAttentionBackward(xs, ps, dy, scale),
    };
  }) as CustomGradFn);
  const y = attend(x) as tf.Tensor4D;
  return pad ? y.slice([0, 0, 0, 0], [B, H, T, hd]) : y;
}

/** rows `rows` of x [B, ...] → [R, ...], no gradient (a prefill's cache rows, the cache's compaction and forks, a
 *  head's q, k, v). On wasm a heap copy per run of rows (kernels/wasmRows.ts): its gather costs ~36 ns an element
 *  and a one-hot matMul first packs the whole tensor. Exact either way: this op picks its backend's fastest copy. */
export function takeRows<T extends tf.Tensor>(x: T, rows: readonly number[]): T {
  const B = x.shape[0];
  const bad = rows.find((r) => !Number.isInteger(r) || r < 0 || r >= B);
  if (bad !== undefined) throw new Error(`takeRows: row ${bad} outside [0, ${B})`);
  if (tf.getBackend() === 'wasm') return wasmRows(x, rows) as T;
  return tf.gather(x, tf.tensor1d(rows.slice(), 'int32')) as T;
}

/** rows `index` (distinct, int32 [P]) of x [N, K] → [P, K], differentiable in x on every backend.
 *  Gather's own gradient is an UnsortedSegmentSum, which wasm lacks; with distinct indices (the
 *  caller's promise) the gradient is a plain scatter of dy into zeros. */
export function selectRows(x: tf.Tensor2D, index: tf.Tensor1D): tf.Tensor2D {
  const shape = x.shape;
  const select = tf.customGrad(((input: tf.Tensor, save: tf.GradSaveFunc) => {
    save([index]); // kept for the backward, which may run after the caller's scope freed `index`
    return {
      value: tf.gather(input, index),
      gradFunc: (dy: tf.Tensor, [saved]: tf.Tensor[]) => tf.scatterND(saved.reshape([-1, 1]), dy, shape),
    };
  }) as CustomGradFn);
  return select(x) as tf.Tensor2D;
}

/** softmax over the last axis of any rank */
export function softmaxLast<T extends tf.Tensor>(x: T): T {
  const K = x.shape[x.rank - 1];
  return softmaxRows(x.reshape([-1, K])).reshape(x.shape) as T;
}

/** log-softmax over the last axis of any rank */
export function logSoftmaxLast<T extends tf.Tensor>(x: T): T {
  const K = x.shape[x.rank - 1];
  return logSoftmaxRows(x.reshape([-1, K])).reshape(x.shape) as T;
}

/** GELU, tanh approximation (GPT-2): 0.5·x·(1 + tanh(u)), written as the identical x·σ(2u) — two ops
 *  fewer, and wasm's sigmoid is ~3× faster than its tanh */
export function gelu(x: tf.Tensor3D): tf.Tensor3D {
  const twoU = x.add(x.mul(x).mul(x).mul(0.044715)).mul(2 * Math.sqrt(2 / Math.PI)); // 2u
  return x.mul(tf.sigmoid(twoU));
}

export function gaussian(rng: Rng): number {
  // Box–Muller; 1 - u keeps log away from 0
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}
