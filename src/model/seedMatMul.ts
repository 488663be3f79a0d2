// The seed stack's linear algebra (seedStack.ts): a matMul of S seeds, each through its own weights.
import * as tf from '@tensorflow/tfjs';
import { matMul } from './ops.ts';

/** a [S, N, K]·b [S, K, M] (b [S, M, K] transposed when transposeB), differentiable: one batched matMul,
 *  but on wasm, whose batched matMul is a naive loop (~20× slower than its 2-D XNNPACK path), one 2-D a seed */
export function seedMatMul(a: tf.Tensor3D, b: tf.Tensor3D, transposeB = false): tf.Tensor3D {
  if (tf.getBackend() !== 'wasm') return matMul(a, b, false, transposeB);
  const [S, N] = a.shape;
  if (S === 1) { // tfjs's unstack gradient fails on one piece
    const y = matMul(a.reshape(a.shape.slice(1)) as tf.Tensor2D, b.reshape(b.shape.slice(1)), false, transposeB);
    return y.reshape([1, N, y.shape[1]]);
  }
  const bs = tf.unstack(b) as tf.Tensor2D[];
  return tf.stack((tf.unstack(a) as tf.Tensor2D[]).map((x, s) => matMul(x, bs[s], false, transposeB))) as tf.Tensor3D;
}
