// The wasm SIMD kernel of the cached attention's two products (kernels/wasmAttentionMatMul.ts) gives
// tf.matMul's floats bit for bit — tfjs-wasm's own scalar loop, its 48-wide k-blocks included — at
// the shapes of a decode step, a prefill and the presets' head sizes, NaN and ±Inf too.
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { setWasmAttentionKernel, wasmAttentionMatMul } from '../../src/model/kernels/wasmAttentionMatMul.ts';

beforeAll(async () => {
  expect(await tf.setBackend('wasm')).toBe(true);
});

/** every float the same, by Object.is (NaN = NaN, +0 ≠ −0) */
function sameBits(got: Float32Array, want: Float32Array): number {
  expect(got.length).toBe(want.length);
  let differ = 0;
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) differ++;
  return differ;
}

describe('wasmAttentionMatMul', () => {
  // [N = rows·heads, n queries, hd, cap]: decode steps, prefills, the presets' head sizes (16, 24, 32),
  // caps past one and many 48-slot k-blocks, caps not a multiple of 48 or of 4 (the last columns one by
  // one), head sizes not a multiple of 4 (keys through a transposed copy; p·v's last columns one by one)
  const shapes = [[2, 1, 16, 64], [64, 1, 16, 256], [31, 47, 16, 192], [8, 3, 24, 100], [4, 5, 32, 576], [3, 2, 16, 52], [1, 1, 4, 4],
    [16, 1, 16, 206], [5, 7, 16, 3], [3, 2, 6, 50], [2, 3, 5, 97], [2, 1, 1, 1]];
  it.each(shapes)('q·kᵀ and p·v at N=%i n=%i hd=%i cap=%i: the floats of tf.matMul', (N, n, hd, cap) => {
    const q = tf.randomNormal([N, n, hd], 0, 1, 'float32', 1) as tf.Tensor3D;
    const k = tf.randomNormal([N, cap, hd], 0, 1, 'float32', 2) as tf.Tensor3D;
    const p = tf.softmax(tf.randomNormal([N, n, cap], 0, 3, 'float32', 3)) as tf.Tensor3D;
    const v = tf.randomNormal([N, cap, hd], 0, 1, 'float32', 4) as tf.Tensor3D;
    const before = tf.memory().numTensors;
    for (const [a, b, transposeB] of [[q, k, true], [p, v, false]] as const) {
      const got = wasmAttentionMatMul(a, b, transposeB);
      expect(got).not.toBeNull();
      expect(got!.shape).toEqual([N, n, transposeB ? cap : hd]);
      const want = tf.matMul(a, b, false, transposeB);
      expect(sameBits(got!.dataSync() as Float32Array, want.dataSync() as Float32Array)).toBe(0);
      tf.dispose([got!, want]);
    }
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([q, k, p, v]);
  });

  it('keys whose size is not a multiple of 4 go through a transposed copy, with the same floats', () => {
    const q = tf.randomNormal([3, 2, 6], 0, 1, 'float32', 5) as tf.Tensor3D;
    const k = tf.randomNormal([3, 52, 6], 0, 1, 'float32', 6) as tf.Tensor3D;
    const got = wasmAttentionMatMul(q, k, true)!;
    const want = tf.matMul(q, k, false, true);
    expect(sameBits(got.dataSync() as Float32Array, want.dataSync() as Float32Array)).toBe(0);
    tf.dispose([q, k, got, want]);
  });

  it('can be switched off for a side-by-side measurement', () => {
    const [a, b] = [tf.ones([2, 1, 4]) as tf.Tensor3D, tf.ones([2, 4, 4]) as tf.Tensor3D];
    setWasmAttentionKernel(false);
    expect(wasmAttentionMatMul(a, b, true)).toBeNull();
    setWasmAttentionKernel(true);
    const on = wasmAttentionMatMul(a, b, true)!;
    expect(Array.from(on.dataSync())).toEqual(new Array(8).fill(4));
    tf.dispose([a, b, on]);
  });

  it('carries NaN, ±Inf and signed zeros as tf.matMul does', () => {
    const a = tf.tensor3d([NaN, 1, 2, 3, 0, -0, Infinity, 1, -1, 2, 0.5, -Infinity], [2, 2, 3]);
    const b = tf.tensor3d([1, -0, 2, 0, 3, 1, -1, 0, 4, 2, 1, 0, -0, 0, 1, 2, 3, 4, 5, 6, -7, 8, 9, 1], [2, 3, 4]);
    const got = wasmAttentionMatMul(a, b, false)!;
    const want = tf.matMul(a, b);
    expect(sameBits(got.dataSync() as Float32Array, want.dataSync() as Float32Array)).toBe(0);
    tf.dispose([a, b, got, want]);
  });

  it('declines what it does not cover (then the caller runs tf.matMul)', () => tf.tidy(() => {
    const a = tf.zeros([2, 3, 5]) as tf.Tensor3D;
    expect(wasmAttentionMatMul(a, tf.zeros([3, 5, 8]) as tf.Tensor3D, false)).toBeNull(); // batches differ
    expect(wasmAttentionMatMul(a, tf.zeros([2, 4, 8]) as tf.Tensor3D, false)).toBeNull(); // inner sizes differ
    expect(wasmAttentionMatMul(a, tf.zeros([2, 5, 8], 'int32') as tf.Tensor3D, false)).toBeNull();
  }));
});
