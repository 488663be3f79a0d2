// Elementwise pieces of the model, written for speed on tfjs `cpu` and exact gradients everywhere.
import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../env/random.ts';

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
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [yy] = saved;
      return dy.sub(tf.matMul(dy.mul(yy).sum(-1, true), tf.ones([1, K]))).mul(yy); // y ⊙ (dy − Σ dy·y)
    },
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
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => dy.sub(tf.exp(saved[0]).mul(tf.matMul(dy.sum(-1, true), tf.ones([1, K])))), // dy − softmax·Σ dy
  };
}) as CustomGradFn);
type CustomGradFn = Parameters<typeof tf.customGrad>[0];

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

/** GELU, tanh approximation (GPT-2) */
export function gelu(x: tf.Tensor3D): tf.Tensor3D {
  const inner = x.add(x.mul(x).mul(x).mul(0.044715)).mul(Math.sqrt(2 / Math.PI));
  return x.mul(0.5).mul(tf.tanh(inner).add(1));
}

export function gaussian(rng: Rng): number {
  // Box–Muller; 1 - u keeps log away from 0
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}
