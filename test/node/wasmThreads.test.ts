// tfjs's threaded wasm build in Node (src/node/wasmThreaded.ts): it starts with the threads asked for,
// even on a 2-core machine (the binary would halve the cores), and computes what plain JS computes;
// the attention's SIMD kernel runs on its shared heap.
import { afterAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { THREADS_ENV, useNodeBackend, wasmThreads } from '../../src/node/nodeBackend.ts';
import { wasmAttentionMatMul } from '../../src/model/kernels/wasmAttentionMatMul.ts';

describe('wasm threads in Node', () => {
  afterAll(() => { delete process.env[THREADS_ENV]; });

  it('reads STAR_WASM_THREADS and refuses nonsense', () => {
    process.env[THREADS_ENV] = '3';
    expect(wasmThreads()).toBe(3);
    process.env[THREADS_ENV] = '0';
    expect(() => wasmThreads()).toThrow(/1 to 8/);
  });

  it('runs the threaded build on 2 threads, matMul as on cpu', async () => {
    await tf.setBackend('cpu');
    const a = tf.randomNormal([96, 80], 0, 1, 'float32', 7);
    const b = tf.randomNormal([80, 64], 0, 1, 'float32', 8);
    const want = tf.matMul(a, b).dataSync();
    const [av, bv] = [a.dataSync(), b.dataSync()];
    expect(await useNodeBackend('wasm', 2)).toBe(2);
    const got = tf.matMul(tf.tensor2d(av, [96, 80]), tf.tensor2d(bv, [80, 64])).dataSync();
    let worst = 0;
    for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
    expect(worst).toBeLessThan(1e-4);
    // the attention's SIMD kernel runs on the threaded build's shared heap too, with tf.matMul's floats
    const q = tf.randomNormal([8, 5, 16], 0, 1, 'float32', 9) as tf.Tensor3D;
    const k = tf.randomNormal([8, 100, 16], 0, 1, 'float32', 10) as tf.Tensor3D;
    const scores = wasmAttentionMatMul(q, k, true);
    expect(scores).not.toBeNull();
    const plain = tf.matMul(q, k, false, true).dataSync();
    expect(Array.from(scores!.dataSync()).every((x, i) => Object.is(x, plain[i]))).toBe(true);
  }, 60_000);
});
