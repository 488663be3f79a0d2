// A decode step (Policy.step) on webgpu in 1 dispatch a layer instead of ~19. A Policy, which keeps its weights
// packed in one buffer (kernels/decodeLayer.ts), runs each layer as one kernel: a workgroup a cache row, the
// whole layer below in order, its tokens one after another. The seed stack (and a model whose layer outgrows a
// workgroup's memory) runs the five-dispatch layer below. On a GPU a
// decode step of these models is bound by the host's work per dispatch (tfjs's engine, a uniform buffer
// and bind group each), so the step is rewritten around fewer, larger kernels; the values are the plain
// path's within float rounding. A layer:
//   qkv = LN1(x)·W_qkv + b                  decodeLinear (LayerNorm fused)                    1
//   cache[k], cache[v] ← qkv's k, v rows;   decodeAttentionWritingCache: the fresh rows written in
//   y = attention(q of qkv, cache)          place first, read straight out of qkv (no split, no bias) 1
//   x = x + y·W_o + b                       decodeLinear (residual fused)                      1
//   h = gelu(LN2(x)·W_fc + b)               decodeLinear (LayerNorm, GELU fused)               1
//   x = x + h·W_proj + b                    decodeLinear (residual fused)                      1
// plus the embedding (a gather, not oneHot·matMul: the same rows exactly) and LN_f with the tied head
// in one decodeLinear. The plain path: LayerNorm 1, a qkv matMul, bias add, transpose and three slices,
// two writes, attention 1, matMul + bias + residual adds twice, matMul + biasGelu.
// A prefill (Policy.prefill) runs the same way over its R·n tokens at once: each token a row of the linear
// layers, the cache written first in two dispatches of their own (padded tokens never; a token reads the rows
// of the tokens before it, which other workgroups write), then each token attends its own cache row's slots up to
// its own (prefillAttentionFromQkv: the cache row read in place, no gather of the rows, no [R, H, n, cap] bias);
// the last layer stops after its cache write (nothing reads a prefill's output). ~16 dispatches a layer → 4–7.
// Inference only (whileDecoding's callers never differentiate a decode step or a prefill).
import * as tf from '@tensorflow/tfjs';
import { alibiSlopes, type ModelConfig } from './config.ts';
import type { KVCache } from './kvcache.ts';
import { decodeLinear, type DecodeLinearOptions } from './kernels/decodeLinear.ts';
import { decodeAttentionWritingCache, DECODE_ATTENTION_MAX_SLOTS, prefillAttentionFromQkv, type DecodePositions }
  from './kernels/decodeAttention.ts';
import { writableInPlace, writeRowsInPlaceIndexed } from './kernels/inPlaceRows.ts';
import { decodeLayer, decodeLayerFits } from './kernels/decodeLayer.ts';
import type { WebGPUBackend } from './kernels/webgpu.ts';

type Params = (name: string) => tf.Tensor;
type Fused = { logits: tf.Tensor2D | null; keys: tf.Tensor4D[]; values: tf.Tensor4D[] };

/** What the layers run with: a Policy's weights by name (then decodeLinear and a plain embedding), or the seed
 *  stack's (model/seedStack.ts: weights [S, ...], decodeLinearSeeds, each seed's rows a block of the tokens). */
export interface FusedWeights {
  p: Params;
  linear: (h: tf.Tensor2D, w: tf.Tensor, o?: DecodeLinearOptions) => tf.Tensor2D;
  /** tokens ids at slots pos → their rows [Q, C] */
  embed: (ids: Int32Array, pos: Float32Array) => tf.Tensor2D;
  /** every layer's weights packed for the one-dispatch layer (kernels/decodeLayer.ts), kept by their owner while
   *  the weights stay; absent: the five-dispatch layer */
  packed?: () => tf.Tensor1D;
}

/** a Policy's weights by name, with its packed layers when it keeps them */
export function asWeights(config: ModelConfig, p: Params | FusedWeights, packed?: () => tf.Tensor1D): FusedWeights {
  if (typeof p !== 'function') return p;
  return {
    p,
    packed,
    linear: decodeLinear,
    // a gather: the rows oneHot·matMul gives (1·w + 0·… is w exactly), in one dispatch instead of two
    embed: (ids, pos) => {
      const x = tf.gather(p('wte'), tf.tensor1d(ids, 'int32')) as tf.Tensor2D; // [Q, C]
      if (config.positions === 'alibi') return x;
      return x.add(tf.gather(p('wpe'), tf.tensor1d(Int32Array.from(pos), 'int32'))) as tf.Tensor2D;
    },
  };
}

/**
 * Logits [B, V] for tokens `ids` [B] (n = 1) of the cache's B rows, and the cache's new keys/values per layer, the
 * fresh rows written in place at slot lens[b] of each active row `rows` (counts: 1 each). Null when the cache
 * cannot be written in place or is past the attention kernel's slots (then the plain path runs). Inside tf.tidy.
 */
export function fusedDecodeStep(
  config: ModelConfig,
  p: Params | FusedWeights,
  cache: KVCache,
  ids: Int32Array,
  _n: number,
  rows: readonly number[],
  lens: readonly number[],
): Fused | null {
  if (!fusibleCache(cache)) return null;
  const pos = Float32Array.from(lens, (l) => Math.min(l, config.contextLength - 1)); // query b sits at slot len_b
  const slots = new Float32Array(ids.length).fill(-1); // the slot row b's fresh key and value go to; −1: none
  for (const b of rows) slots[b] = lens[b];
  const w = asWeights(config, p);
  if (w.packed && decodeLayerFits(config, tf.backend() as unknown as WebGPUBackend)) {
    const B = ids.length;
    const meta = new Float32Array(3 * B);
    meta.set(pos);
    meta.set(slots, B);
    for (let b = 0; b < B; b++) meta[2 * B + b] = b;
    return wholeLayers(config, w, w.packed(), cache, ids, pos, meta, 1, true);
  }
  return layers(config, w, cache, ids, pos, { slots: tf.tensor1d(slots) }, [], true);
}

/**
 * A prefill in fused kernels: tokens `ids` [R·n] (row j's n tokens, padded past counts[j]) appended to cache row
 * rows[j] at slots lens[j]…; the cache's new keys/values per layer. Null as fusedDecodeStep. Inside tf.tidy.
 */
export function fusedPrefill(config: ModelConfig, p: Params | FusedWeights, cache: KVCache, ids: Int32Array, n: number,
  rows: readonly number[], lens: readonly number[], counts: readonly number[]): Fused | null {
  if (!fusibleCache(cache)) return null;
  const R = rows.length;
  const pos = new Float32Array(R * n);
  const rowOf = new Float32Array(R * n);
  const writes: [number, number, number][] = []; // [query, cache row, slot] of each real token
  for (let j = 0; j < R; j++) {
    for (let k = 0; k < n; k++) {
      pos[j * n + k] = Math.min(lens[j] + k, config.contextLength - 1);
      rowOf[j * n + k] = rows[j];
      if (k < counts[j]) writes.push([j * n + k, rows[j], lens[j] + k]);
    }
  }
  const w = asWeights(config, p);
  if (w.packed && decodeLayerFits(config, tf.backend() as unknown as WebGPUBackend)) {
    const Q = R * n;
    const meta = new Float32Array(2 * Q + R).fill(-1); // slots: −1 (a padded token) but where written below
    meta.set(pos);
    for (const [q, , slot] of writes) meta[Q + q] = slot;
    for (let j = 0; j < R; j++) meta[2 * Q + j] = rows[j];
    return wholeLayers(config, w, w.packed(), cache, ids, pos, meta, n, false);
  }
  return layers(config, w, cache, ids, pos, { rowOf: tf.tensor1d(rowOf) }, writes, false);
}

/** the layers over Q tokens, one dispatch each (kernels/decodeLayer.ts): `meta` is its LayerRows's, a cache row's
 *  `tokens` tokens a workgroup, each writing its key and value at its slot before it attends */
function wholeLayers(config: ModelConfig, w: FusedWeights, packed: tf.Tensor1D, cache: KVCache, ids: Int32Array,
  pos: Float32Array, meta: Float32Array, tokens: number, logits: boolean): Fused {
  const H = config.nHeads;
  const slopes = tf.tensor1d(config.positions === 'alibi' ? alibiSlopes(H) : new Array<number>(H).fill(0));
  const rows = { meta: tf.tensor1d(meta), tokens };
  const scale = 1 / Math.sqrt(config.dModel / H);
  let x = w.embed(ids, pos); // [Q, C]
  const keys: tf.Tensor4D[] = [];
  const values: tf.Tensor4D[] = [];
  for (let i = 0; i < config.nLayers; i++) {
    x = decodeLayer(config, x, cache.keys[i], cache.values[i], packed, i, rows, slopes, scale);
    keys.push(cache.keys[i].clone()); // [B, H, cap, hd]: written in place
    values.push(cache.values[i].clone());
  }
  const { p, linear } = w;
  const head = () => linear(x, p('wte'), { ln: { g: p('ln_f.g'), b: p('ln_f.b') }, transposeW: true }); // [Q, V]
  return { logits: logits ? head() : null, keys, values };
}

/** whether the fused kernels can run over this cache: written in place, within the attention kernel's slots */
export const fusibleCache = (cache: KVCache) =>
  cache.capacity <= DECODE_ATTENTION_MAX_SLOTS && [...cache.keys, ...cache.values].every(writableInPlace);

/** the layers over Q tokens `ids` at slots `pos`: a prefill's tokens of cache rows `rowOf`, written to the cache by
 *  `writes` ([query, cache row, slot]) before the attention; or a decode step's (token q is cache row q), whose
 *  attention writes token b's key and value at slot `slots[b]` itself */
function layers(config: ModelConfig, w: FusedWeights, cache: KVCache, ids: Int32Array, pos: Float32Array,
  rows: { rowOf: tf.Tensor1D } | { slots: tf.Tensor1D }, writes: readonly (readonly [number, number, number])[],
  logits: boolean): Fused {
  const { dModel: C, nHeads: H, nLayers } = config;
  const Q = ids.length;
  const hd = C / H;
  const cap = cache.capacity;
  // the fresh k and v of token q, head h are rows q·3H + H + h and q·3H + 2H + h of qkv viewed as [Q·3H, hd];
  // they go to row (r·H + h)·cap + slot of the cache viewed as [B·H·cap, hd]
  const dst: number[] = [];
  const srcK: number[] = [];
  const srcV: number[] = [];
  for (const [q, r, slot] of writes) {
    for (let h = 0; h < H; h++) {
      dst.push((r * H + h) * cap + slot);
      srcK.push(q * 3 * H + H + h);
      srcV.push(q * 3 * H + 2 * H + h);
    }
  }
  const dstT = tf.tensor1d(dst);
  const srcKT = tf.tensor1d(srcK);
  const srcVT = tf.tensor1d(srcV);
  const slopes = config.positions === 'alibi' ? alibiSlopes(H) : new Array<number>(H).fill(0);
  const at: DecodePositions = { pos: tf.tensor1d(pos), slopes: tf.tensor1d(slopes) };
  const { p, linear } = w;
  let x = w.embed(ids, pos); // [Q, C]
  const keys: tf.Tensor4D[] = [];
  const values: tf.Tensor4D[] = [];
  const scale = 1 / Math.sqrt(hd);
  for (let i = 0; i < nLayers; i++) {
    const ln = (name: string) => ({ g: p(`h${i}.${name}.g`), b: p(`h${i}.${name}.b`) });
    const qkv = linear(x, p(`h${i}.attn.w_qkv`), { ln: ln('ln1'), bias: p(`h${i}.attn.b_qkv`) }); // [Q, 3C]
    let y: tf.Tensor2D; // [Q, C]
    if ('slots' in rows) {
      y = decodeAttentionWritingCache(qkv, cache.keys[i], cache.values[i], at, rows.slots, scale);
      keys.push(cache.keys[i].clone()); // [B, H, cap, hd]: written in place
      values.push(cache.values[i].clone());
    } else {
      const fresh = qkv.reshape([Q * 3 * H, hd]); // [Q·3H, hd]
      keys.push(dst.length ? writeRowsInPlaceIndexed(cache.keys[i], fresh, dstT, srcKT) : cache.keys[i].clone());
      values.push(dst.length ? writeRowsInPlaceIndexed(cache.values[i], fresh, dstT, srcVT) : cache.values[i].clone());
      if (!logits && i === nLayers - 1) break; // a prefill's last layer: only its cache write is read
      y = prefillAttentionFromQkv(qkv, keys[i], values[i], at, rows.rowOf, scale);
    }
    x = linear(y, p(`h${i}.attn.w_proj`), { bias: p(`h${i}.attn.b_proj`), residual: x }); // [Q, C]
    const h = linear(x, p(`h${i}.mlp.w_fc`), { ln: ln('ln2'), bias: p(`h${i}.mlp.b_fc`), gelu: true }); // [Q, F]
    x = linear(h, p(`h${i}.mlp.w_proj`), { bias: p(`h${i}.mlp.b_proj`), residual: x }); // [Q, C]
  }
  const head = () => linear(x, p('wte'), { ln: { g: p('ln_f.g'), b: p('ln_f.b') }, transposeW: true }); // [Q, V]
  return { logits: logits ? head() : null, keys, values };
}
