// How the policy attends, one path per backend, chosen in one place (attentionPath) and asked once at the top
// of each forward pass, the seed stack's included: the path carries every choice the attention makes (its masks,
// how it splits q, k, v, its softmax and products over the cache, the decode kernels), so nothing below it asks
// which backend it runs on. Only ops.ts's primitives (matMul, takeRows, the per-head training attention) pick their
// own backend's fastest route to the same op, as any op does.
//
//   path            backend                          whole sequences            decoding (prefill, step)
//   per-head        wasm, cpu                        one head at a time         bias tensor, plain ops
//   batched         any other (webgpu kernels off)   [B, H, T, T] batched       bias tensor, plain ops
//   webgpu          webgpu, decode kernels off       batched                    + the decode attention kernel
//   webgpu-fused    webgpu (the default there)       batched                    + whole prefills and steps fused
//
// The decoding ops differ between wasm and cpu too (CacheKernels, cachedAttention.ts): the path carries them.
// Why per head on wasm and cpu: wasm's batched matMul is a naive loop (an SFT step ran ~4× faster per head) and
// cpu is as fast either way and skips the [B, H, T, T] mask; a GPU keeps the batched form, where B·H small
// kernels a layer would cost more than they save. The choice is made at each forward, not once for the Policy's
// life, because the backend and the kernel switches (setFusedKernels, setFusedDecode) may change under a live
// Policy: the kernel checks and the GPU check run one model both ways.
import * as tf from '@tensorflow/tfjs';
import { alibiSlopes, type ModelConfig } from './config.ts';
import { attendCached, cachedAttentionBias, cachedQkv, CPU_CACHE, decodePositions, PLAIN_CACHE, WASM_CACHE,
  type CacheKernels } from './cachedAttention.ts';
import type { DecodePositions } from './kernels/decodeAttention.ts';
import { causalAttention, matMul, softmaxLast } from './ops.ts';
import { useFusedDecode, useFusedKernels } from './kernels/webgpu.ts';
import { fusedDecodeStep, fusedPrefill, type FusedWeights } from './fusedDecode.ts';
import type { KVCache } from './kvcache.ts';

const NEG = -1e9; // additive mask; finite so a fully masked row gives a uniform softmax, never NaN

/** whole sequences' mask: one causal [T, T] (or one per head under ALiBi), or tiled to [B, H, T, T] */
export type SequenceMask = { perHead: tf.Tensor2D | tf.Tensor2D[] } | { batched: tf.Tensor4D };
/** what cached queries attend with: a bias [R, H, n, cap], or (decode kernel) each row's query position */
export type CacheMask = tf.Tensor4D | DecodePositions;
/** the cache's keys and values to attend over, after this layer's fresh k, v [R, H, n, hd] are written */
export type CacheWrite = (k: tf.Tensor4D, v: tf.Tensor4D) => [tf.Tensor4D, tf.Tensor4D];
/** a whole decode step or prefill in fused kernels: logits (a step only) and each layer's new keys and values */
export type FusedResult = { logits: tf.Tensor2D | null; keys: tf.Tensor4D[]; values: tf.Tensor4D[] };
export type FusedPass = (
  config: ModelConfig,
  p: ((name: string) => tf.Tensor) | FusedWeights,
  cache: KVCache,
  ids: Int32Array,
  n: number,
  rows: readonly number[],
  lens: readonly number[],
  counts: readonly number[],
) => FusedResult | null;

export interface AttentionPath {
  readonly name: 'per-head' | 'batched' | 'webgpu' | 'webgpu-fused';
  /** the mask for B rows of T tokens, built once a forward pass */
  sequenceMask(config: ModelConfig, B: number, T: number): SequenceMask;
  /** causal self-attention: qkv [B, T, 3C] → [B, T, C] */
  attendSequence(config: ModelConfig, qkv: tf.Tensor3D, mask: SequenceMask): tf.Tensor3D;
  /** the mask for R rows of n queries at cache positions `pos` ([R·n], row-major) over `cap` slots: a decode
   *  `step`'s (n = 1) or a prefill's */
  cacheMask(config: ModelConfig, pos: Int32Array, R: number, n: number, cap: number, step: boolean): CacheMask;
  /** a layer's attention over the cache: xn [R, n, C] → [R, n, C], writing its k, v through `write` */
  attendCache(config: ModelConfig, xn: tf.Tensor3D, w: tf.Tensor, b: tf.Tensor, mask: CacheMask,
    write: CacheWrite): tf.Tensor3D;
  /** how the attention over the cache runs (the seed stack splits its own qkv and attends with these) */
  cache: CacheKernels;
  /** a whole decode step (n = 1) or prefill in fused kernels, or null: then the layers run one by one */
  fused: { step: FusedPass; prefill: FusedPass } | null;
}

/** one causal [T, T] bias, or one per head with ALiBi's −m_h·(i − j) */
function causalBias(config: ModelConfig, T: number): tf.Tensor2D | tf.Tensor2D[] {
  const causal = tf.linalg.bandPart(tf.ones([T, T]), -1, 0); // lower triangle incl. diagonal
  const bias = tf.sub(1, causal).mul(NEG) as tf.Tensor2D; // [T, T]
  if (config.positions !== 'alibi') return bias;
  const dist = tf.range(0, T).reshape([T, 1]).sub(tf.range(0, T).reshape([1, T])).mul(causal); // [T, T]
  return alibiSlopes(config.nHeads).map((m) => bias.sub(dist.mul(m)) as tf.Tensor2D);
}

/** q [B,H,Tq,hd], k/v [B,H,Tk,hd], maskBias [B,H,Tq,Tk] (full shape: broadcasting adds are slow on cpu)
 *  → [B, Tq, C] */
function attend(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, maskBias: tf.Tensor): tf.Tensor3D {
  const [B, H, Tq, hd] = q.shape;
  // scale q, not the scores: it is the smaller tensor
  const scores = matMul(q.mul(1 / Math.sqrt(hd)), k, false, true).add(maskBias); // [B, H, Tq, Tk]
  const y = matMul(softmaxLast(scores), v); // [B, H, Tq, hd]
  return y.transpose([0, 2, 1, 3]).reshape([B, Tq, H * hd]); // [B, Tq, C]
}

const maskOf = (mask: SequenceMask) => ('perHead' in mask ? mask.perHead : null);

/** a layer's attention over the cache with these kernels */
const cachedLayer = (kernels: CacheKernels) => (config: ModelConfig, xn: tf.Tensor3D, w: tf.Tensor, b: tf.Tensor,
  mask: CacheMask, write: CacheWrite) => {
  const H = config.nHeads;
  const [q, k, v] = cachedQkv(xn, w, b, H, kernels); // [R, H, n, hd] each
  const [keys, values] = write(k, v);
  return attendCached(q, keys, values, mask, 1 / Math.sqrt(config.dModel / H), kernels);
};

const PER_HEAD: AttentionPath = {
  name: 'per-head',
  sequenceMask: (config, _B, T) => ({ perHead: causalBias(config, T) }),
  attendSequence(config, qkv, mask) {
    const bias = maskOf(mask);
    if (!bias) throw new Error('attention: the per-head path needs a per-head mask');
    const [B, T] = qkv.shape;
    const H = config.nHeads;
    const hd = config.dModel / H;
    // a 4-D transpose to [B, 3H, T, hd] (q heads, k heads, v heads per row): 5-D ones are ~10× slower on wasm
    const heads = qkv.reshape([B, T, 3 * H, hd]).transpose([0, 2, 1, 3]) as tf.Tensor4D;
    const y = causalAttention(heads, H, bias, 1 / Math.sqrt(hd)); // [B, H, T, hd]
    return y.transpose([0, 2, 1, 3]).reshape([B, T, H * hd]); // [B, T, C]
  },
  cacheMask: (config, pos, R, n, cap) => cachedAttentionBias(config, pos, R, n, cap),
  attendCache: cachedLayer(WASM_CACHE),
  cache: WASM_CACHE,
  fused: null,
};

/** cpu: per head as wasm, with cpu's own ops over the cache */
const PER_HEAD_CPU: AttentionPath = { ...PER_HEAD, attendCache: cachedLayer(CPU_CACHE), cache: CPU_CACHE };

const BATCHED: AttentionPath = {
  name: 'batched',
  sequenceMask(config, B, T) {
    const H = config.nHeads;
    const bias = causalBias(config, T);
    // tiled to the full [B, H, T, T] once (broadcasting adds are slow on some backends)
    return { batched: (Array.isArray(bias)
      ? tf.tile(tf.stack(bias).reshape([1, H, T, T]), [B, 1, 1, 1])
      : tf.tile(bias.reshape([1, 1, T, T]), [B, H, 1, 1])) as tf.Tensor4D };
  },
  attendSequence(config, qkv, mask) {
    if (!('batched' in mask)) throw new Error('attention: the batched path needs a batched mask');
    const [B, T] = qkv.shape;
    const { nHeads: H, dModel: C } = config;
    // one transpose to [3, B, H, T, hd], then contiguous slices (cpu's split/strided slice is slow)
    const heads = qkv.reshape([B, T, 3, H, C / H]).transpose([2, 0, 3, 1, 4]);
    const [q, k, v] = tf.unstack(heads, 0) as tf.Tensor4D[]; // [B, H, T, hd] each
    return attend(q, k, v, mask.batched);
  },
  cacheMask: PER_HEAD.cacheMask,
  attendCache: cachedLayer(PLAIN_CACHE),
  cache: PLAIN_CACHE,
  fused: null,
};

/** webgpu's decode attention kernel reads positions, not a bias (within its slot limit) */
const WEBGPU: AttentionPath = {
  ...BATCHED,
  name: 'webgpu',
  cacheMask: (config, pos, R, n, cap, step) =>
    (step ? decodePositions(config, pos, cap) : null) ?? cachedAttentionBias(config, pos, R, n, cap),
};

const WEBGPU_FUSED: AttentionPath = {
  ...WEBGPU,
  name: 'webgpu-fused',
  fused: { step: fusedDecodeStep, prefill: fusedPrefill },
};

/** the path for the current backend and kernel switches */
export function attentionPath(): AttentionPath {
  const backend = tf.getBackend();
  if (backend === 'wasm') return PER_HEAD;
  if (backend === 'cpu') return PER_HEAD_CPU;
  if (!useFusedKernels()) return BATCHED;
  return useFusedDecode() ? WEBGPU_FUSED : WEBGPU;
}
