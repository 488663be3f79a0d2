// A decode step (Policy.step) on webgpu in ~7 dispatches a layer instead of ~19. On a GPU a
// decode step of these models is bound by the host's work per dispatch (tfjs's engine, a uniform buffer
// and bind group each), so the step is rewritten around fewer, larger kernels; the values are the plain
// path's within float rounding. A layer:
//   qkv = LN1(x)·W_qkv + b                  decodeLinear (LayerNorm fused)                    1
//   cache[k], cache[v] ← qkv's k, v rows   write in place, read straight out of qkv (no split) 2
//   y = attention(q of qkv, cache)          decodeAttentionFromQkv (no q/k/v split, no bias)   1
//   x = x + y·W_o + b                       decodeLinear (residual fused)                      1
//   h = gelu(LN2(x)·W_fc + b)               decodeLinear (LayerNorm, GELU fused)               1
//   x = x + h·W_proj + b                    decodeLinear (residual fused)                      1
// plus the embedding (a gather, not oneHot·matMul: the same rows exactly) and LN_f with the tied head
// in one decodeLinear. The plain path: LayerNorm 1, a qkv matMul, bias add, transpose and three slices,
// two writes, attention 1, matMul + bias + residual adds twice, matMul + biasGelu.
// Inference only (whileDecoding's callers never differentiate a decode step).
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from './config.ts';
import type { KVCache } from './kvcache.ts';
import { decodeLinear } from './kernels/decodeLinear.ts';
import { decodeAttentionFromQkv, type DecodePositions } from './kernels/decodeAttention.ts';
import { writableInPlace, writeRowsInPlaceIndexed } from './kernels/inPlaceRows.ts';

/**
 * Logits [B, V] for tokens `ids` [B] of the cache's rows at positions `at` (the fused attention's), and
 * the cache's new keys/values per layer, their fresh rows written in place at slot lens[b] of each active
 * row `rows`. Null when the cache cannot be written in place (then the plain path runs). Call inside tf.tidy.
 */
export function fusedDecodeStep(config: ModelConfig, p: (name: string) => tf.Tensor, cache: KVCache, ids: Int32Array,
  at: DecodePositions, rows: readonly number[], lens: readonly number[]): { logits: tf.Tensor2D; keys: tf.Tensor4D[]; values: tf.Tensor4D[] } | null {
  if (![...cache.keys, ...cache.values].every(writableInPlace)) return null;
  const { dModel: C, nHeads: H, nLayers } = config;
  const B = ids.length;
  const hd = C / H;
  const cap = cache.capacity;
  // the fresh k and v of row b, head h are rows b·3H + H + h and b·3H + 2H + h of qkv viewed as [B·3H, hd];
  // they go to row (b·H + h)·cap + len_b of the cache viewed as [B·H·cap, hd]
  const dst: number[] = [];
  const srcK: number[] = [];
  const srcV: number[] = [];
  for (const b of rows) {
    for (let h = 0; h < H; h++) {
      dst.push((b * H + h) * cap + lens[b]);
      srcK.push(b * 3 * H + H + h);
      srcV.push(b * 3 * H + 2 * H + h);
    }
  }
  const dstT = tf.tensor1d(dst);
  const srcKT = tf.tensor1d(srcK);
  const srcVT = tf.tensor1d(srcV);
  const idsT = tf.tensor1d(ids, 'int32');
  // gather: the rows oneHot·matMul gives (1·w + 0·… is w exactly), in one dispatch instead of two
  let x = tf.gather(p('wte'), idsT) as tf.Tensor2D; // [B, C]
  if (config.positions !== 'alibi') x = x.add(tf.gather(p('wpe'), at.pos.cast('int32'))) as tf.Tensor2D;
  const keys: tf.Tensor4D[] = [];
  const values: tf.Tensor4D[] = [];
  const scale = 1 / Math.sqrt(hd);
  for (let i = 0; i < nLayers; i++) {
    const ln = (name: string) => ({ g: p(`h${i}.${name}.g`), b: p(`h${i}.${name}.b`) });
    const qkv = decodeLinear(x, p(`h${i}.attn.w_qkv`), { ln: ln('ln1'), bias: p(`h${i}.attn.b_qkv`) }); // [B, 3C]
    const fresh = qkv.reshape([B * 3 * H, hd]); // [B·3H, hd]
    keys.push(dst.length ? writeRowsInPlaceIndexed(cache.keys[i], fresh, dstT, srcKT) : cache.keys[i].clone()); // [B, H, cap, hd]
    values.push(dst.length ? writeRowsInPlaceIndexed(cache.values[i], fresh, dstT, srcVT) : cache.values[i].clone());
    const y = decodeAttentionFromQkv(qkv, keys[i], values[i], at, scale); // [B, C]
    x = decodeLinear(y, p(`h${i}.attn.w_proj`), { bias: p(`h${i}.attn.b_proj`), residual: x }); // [B, C]
    const h = decodeLinear(x, p(`h${i}.mlp.w_fc`), { ln: ln('ln2'), bias: p(`h${i}.mlp.b_fc`), gelu: true }); // [B, F]
    x = decodeLinear(h, p(`h${i}.mlp.w_proj`), { bias: p(`h${i}.mlp.b_proj`), residual: x }); // [B, C]
  }
  const logits = decodeLinear(x, p('wte'), { ln: { g: p('ln_f.g'), b: p('ln_f.b') }, transposeW: true }); // [B, V]
  return { logits, keys, values };
}
