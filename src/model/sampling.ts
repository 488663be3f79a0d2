// Sampling next tokens for a batch of rows on the device. Only 3·B numbers come back per step (ids,
// their log-probs and the entropies), never the [B, V] logits. Categorical sampling is inverse-CDF
// with one uniform per row drawn from our seeded Rng, so a run is reproducible on any backend and the
// Rng state alone (checkpointed) decides every sample.
import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../env/random.ts';
import { logSoftmaxLast } from './ops.ts';
import { useFusedDecode } from './kernels/webgpu.ts';
import { sampleRowsFused } from './kernels/sampleRows.ts';

export interface SampledTokens {
  /** sampled (or argmax) token id per row, [B] */
  ids: Int32Array<ArrayBuffer>;
  /** log-probability of that id under the temperature-scaled distribution, [B] */
  logProbs: Float32Array<ArrayBuffer>;
  /** entropy of the temperature-scaled next-token distribution, [B] (ARPO's branching signal) */
  entropies: Float32Array<ArrayBuffer>;
}

/** how a decode step's rows are sampled (sampleTokens' arguments but the logits): uniforms absent when greedy */
export interface RowSampling {
  temperature: number;
  greedy: boolean;
  bans: readonly (readonly number[])[] | undefined;
  uniforms: Float32Array | undefined;
}

/** the logit a banned token gets: finite, so 0·log p stays 0 in the entropy */
const BANNED_LOGIT = -1e9;

/** [B·V] additive logit bias for the banned ids, or null when nothing is banned */
export function banBias(bans: readonly (readonly number[])[] | undefined, B: number, V: number): Float32Array | null {
  if (!bans?.some((ids) => ids.length > 0)) return null;
  const bias = new Float32Array(B * V);
  bans.forEach((ids, b) => { for (const id of ids) bias[b * V + id] = BANNED_LOGIT; });
  return bias;
}

/**
 * Sample one token per row from logits [B, V] (not disposed: the caller owns them). `greedy` takes
 * the argmax (the Rng is not drawn then); otherwise softmax(logits / temperature). `bans[b]` lists
 * ids row b must not produce (constrained decoding): they get probability 0, and the returned
 * log-probs and entropies are those of the masked distribution the token was drawn from.
 * `drawn` (optional) are row uniforms the caller already took from the Rng (a rollout that dropped
 * finished rows still draws one per original row, so its samples stay those of the full batch).
 */
export async function sampleTokens(logits: tf.Tensor2D, temperature: number, rng: Rng | null, greedy: boolean,
  bans?: readonly (readonly number[])[], drawn?: Float32Array): Promise<SampledTokens> {
  const [B, V] = logits.shape;
  const bias = banBias(bans, B, V);
  if (!greedy && !(temperature > 0)) throw new Error(`sampleTokens: temperature must be > 0, got ${temperature}`);
  if (drawn && drawn.length !== B) throw new Error(`sampleTokens: ${drawn.length} uniforms for ${B} rows`);
  if (!greedy && !drawn && !rng) throw new Error('sampleTokens: neither an Rng nor drawn uniforms');
  const uniforms = greedy ? null : drawn ?? Float32Array.from({ length: B }, () => rng!.next());
  const packed = tf.tidy(() =>
    useFusedDecode() // webgpu: one dispatch (kernels/sampleRows.ts), the same law and formulas
      ? sampleRowsFused(
          logits,
          tf.tensor1d(uniforms ?? new Float32Array(B)),
          temperature,
          greedy,
          bias ? tf.tensor2d(bias, [B, V]) : undefined,
        )
      : samplePlain(logits, bias, temperature, uniforms),
  ); // [3, B]
  const flat = (await packed.data()) as Float32Array;
  packed.dispose();
  return {
    ids: Int32Array.from(flat.subarray(0, B)),
    logProbs: flat.slice(B, 2 * B),
    entropies: flat.slice(2 * B, 3 * B),
  };
}

/** the plain ops' draw (every backend but webgpu with its fused kernels): [3, B] ids, log-probs, entropies;
 *  uniforms null is greedy. Call inside tf.tidy. */
function samplePlain(
  logits: tf.Tensor2D,
  bias: Float32Array | null,
  temperature: number,
  uniforms: Float32Array | null,
): tf.Tensor {
  const [B, V] = logits.shape;
  const greedy = uniforms === null;
  const masked = bias ? logits.add(tf.tensor2d(bias, [B, V])) : logits; // [B, V]
  const logp = logSoftmaxLast(greedy ? masked : masked.div(temperature)); // [B, V]
  const probs = tf.exp(logp); // [B, V]
  let ids: tf.Tensor1D;
  if (uniforms === null)
    ids = tf.argMax(masked, 1).cast('int32') as tf.Tensor1D; // [B]
  else {
    const cdf = tf.cumsum(probs, 1); // [B, V]
    // the last column by gather, not slice: wasm's slice of a column copies the whole tensor first
    const total = tf.gather(cdf, tf.tensor1d([V - 1], 'int32'), 1); // [B, 1] (≈ 1; scaling u by it avoids falling off the end)
    // u spread over the row by a matMul with ones (exact: u·1), so `less` compares equal shapes: wasm's
    // broadcasting comparison costs ~65 ns an element (2.5 ms of a 4.4 ms draw at [64, 601])
    const u = tf.matMul(tf.tensor2d(uniforms, [B, 1]).mul(total), tf.ones([1, V])); // [B, V]
    ids = tf.minimum(cdf.less(u).cast('int32').sum(1), V - 1).cast('int32') as tf.Tensor1D; // first index with cdf ≥ u
  }
  const picked = logp.mul(tf.oneHot(ids, V)).sum(1); // [B]
  const entropy = probs.mul(logp).sum(1).neg(); // [B]
  return tf.stack([ids.cast('float32'), picked, entropy]); // [3, B]; ids < 2^24 are exact in float32
}
