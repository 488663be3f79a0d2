// The fused wasm training attention (kernels/wasmTrainingAttention.ts, through ops.ts causalAttention) against
// the per-head plain ops it replaces: outputs and the gradient of the heads within float tolerance, at odd
// lengths (T not a multiple of 4: padded), the presets' head sizes, ALiBi's per-head biases and a single
// causal bias; a non-causal bias keeps the plain path; nothing leaks.
import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { causalAttention, setTrainingAttentionKernel } from '../../src/model/ops.ts';
import { alibiSlopes } from '../../src/model/config.ts';

beforeAll(async () => {
  expect(await tf.setBackend('wasm')).toBe(true);
});

/** the model's masks (transformer.ts hidden): causal −1e9 above the diagonal, minus m_h·(i − j) under ALiBi */
function masks(T: number, H: number, alibi: boolean): tf.Tensor2D[] {
  return tf.tidy(() => {
    const causal = tf.linalg.bandPart(tf.ones([T, T]), -1, 0);
    const bias = tf.sub(1, causal).mul(-1e9) as tf.Tensor2D;
    if (!alibi) return [bias];
    const dist = tf.range(0, T).reshape([T, 1]).sub(tf.range(0, T).reshape([1, T])).mul(causal);
    return alibiSlopes(H).map((m) => bias.sub(dist.mul(m)) as tf.Tensor2D);
  });
}

/** y and d(Σ y·w)/dheads through causalAttention, with the fused kernel on or off */
function run(heads: tf.Tensor4D, H: number, bias: tf.Tensor2D[], w: tf.Tensor, fused: boolean): [Float32Array, Float32Array] {
  setTrainingAttentionKernel(fused);
  try {
    const scale = 1 / Math.sqrt(heads.shape[3]);
    const b = bias.length === 1 ? bias[0] : bias;
    const f = (x: tf.Tensor) => causalAttention(x as tf.Tensor4D, H, b, scale).mul(w).sum();
    const { value, grad } = tf.valueAndGrad(f)(heads);
    const y = tf.tidy(() => causalAttention(heads, H, b, scale));
    const out: [Float32Array, Float32Array] = [y.dataSync() as Float32Array, grad.dataSync() as Float32Array];
    tf.dispose([value, grad, y]);
    return out;
  } finally {
    setTrainingAttentionKernel(true);
  }
}

function maxRelDiff(a: Float32Array, b: Float32Array): number {
  let scale = 0;
  for (const x of b) scale = Math.max(scale, Math.abs(x));
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d / Math.max(scale, 1e-30);
}

describe('fused wasm training attention', () => {
  // [B, H, T, hd, alibi]
  it.each([[2, 2, 13, 16, true], [1, 4, 37, 24, true], [2, 1, 50, 32, false], [1, 2, 448, 16, true], [3, 2, 1, 16, false], [1, 3, 6, 8, true]] as const)(
    'B=%i H=%i T=%i hd=%i alibi=%s: outputs and gradients of the per-head plain ops', (B, H, T, hd, alibi) => {
      const heads = tf.randomNormal([B, 3 * H, T, hd], 0, 1.5, 'float32', 7) as tf.Tensor4D;
      const w = tf.randomNormal([B, H, T, hd], 0, 1, 'float32', 8);
      const bias = masks(T, H, alibi);
      const before = tf.memory().numTensors;
      const [yPlain, gPlain] = run(heads, H, bias, w, false);
      const [yFused, gFused] = run(heads, H, bias, w, true);
      expect(tf.memory().numTensors).toBe(before);
      expect(yFused.length).toBe(yPlain.length);
      expect(gFused.length).toBe(gPlain.length);
      expect(maxRelDiff(yFused, yPlain)).toBeLessThan(2e-6);
      expect(maxRelDiff(gFused, gPlain)).toBeLessThan(2e-5);
      tf.dispose([heads, w, ...bias]);
    });

  it('keeps the plain path for a bias that is not causal', () => {
    const heads = tf.randomNormal([1, 3, 8, 16], 0, 1, 'float32', 9) as tf.Tensor4D;
    const bias = tf.zeros([8, 8]) as tf.Tensor2D; // every key visible: the fused kernel would be wrong here
    const w = tf.ones([1, 1, 8, 16]);
    const [yPlain, gPlain] = run(heads, 1, [bias], w, false);
    const [yFused, gFused] = run(heads, 1, [bias], w, true);
    expect(Array.from(yFused)).toEqual(Array.from(yPlain));
    expect(Array.from(gFused)).toEqual(Array.from(gPlain));
    tf.dispose([heads, bias, w]);
  });
});
