// A whole transformer layer of a decode step or a prefill in one WebGPU dispatch (model/fusedDecode.ts):
//   qkv = LN1(x)·W_qkv + b;  cache[k], cache[v] ← k, v of qkv at the token's slot;  y = attention(q, cache);
//   x = x + y·W_o + b;  x = x + gelu(LN2(x)·W_fc + b)·W_proj + b
// A decode step on a GPU is paced by the host's work per dispatch (~150 µs each on the H200 through Dawn),
// not by arithmetic, and five dispatches a layer (decodeLinear ×4, the attention) were 80 % of the rollouts'.
// One workgroup owns one cache row: its tokens (one in a decode step, a row's n tokens in a prefill) run in
// order, each through the whole layer, so a token's attention reads only cache slots this workgroup wrote
// before it (a barrier inside the workgroup orders them; no workgroup reads another's rows). The row's
// vectors (x, qkv, the MLP's hidden) sit in workgroup memory; the layer's twelve weights are read out of
// one packed buffer (packLayers), since a WebGPU stage binds only 8 storage buffers. The operations are
// decodeLinear's and the attention kernel's in the same order, only the sums' order differs (a tree over
// the workgroup's threads): within float rounding of the plain path (test/node/nodeWebgpu.test.ts checks a
// prefill and decode steps against wasm). Inference only: no gradient.
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from '../config.ts';
import { registerWebGPUKernel, type WebGPUBackend } from './webgpu.ts';
import { dispatchRaw } from './rawDispatch.ts';
import { DECODE_ATTENTION_MAX_SLOTS } from './decodeAttention.ts';

const WORKGROUP = 64;
const EPS = 1e-5; // kernels/layerNorm.ts's
const GELU_2K = 2 * Math.sqrt(2 / Math.PI);
/** the parameters of layer i in packLayers's order */
const LAYER_PARAMS = ['ln1.g', 'ln1.b', 'attn.w_qkv', 'attn.b_qkv', 'attn.w_proj', 'attn.b_proj', 'ln2.g', 'ln2.b',
  'mlp.w_fc', 'mlp.b_fc', 'mlp.w_proj', 'mlp.b_proj'];

/** floats of one layer's packed weights */
export const layerFloats = (C: number, F: number) =>
  2 * C + 3 * C * C + 3 * C + C * C + C + 2 * C + C * F + F + F * C + C;

/** workgroup memory of the kernel in bytes: x, its LayerNorm, the residual after attention (C each), qkv (3C),
 *  the MLP's hidden (F), the scores (the attention kernel's slots) and the reductions' partials */
const workgroupBytes = (C: number, F: number) => 4 * (6 * C + F + DECODE_ATTENTION_MAX_SLOTS + WORKGROUP);

/** whether the one-dispatch layer fits this model on the current device (else the five-dispatch layer runs) */
export function decodeLayerFits(config: ModelConfig, backend: WebGPUBackend): boolean {
  const device = (backend as unknown as { device: GPUDevice }).device;
  return workgroupBytes(config.dModel, config.dFF) <= device.limits.maxComputeWorkgroupStorageSize;
}

/** every layer's twelve weights, flat, one layer after another ([L · layerFloats]): what the kernel binds */
export function packLayers(config: ModelConfig, p: (name: string) => tf.Tensor): tf.Tensor1D {
  return tf.tidy(() => {
    const parts: tf.Tensor[] = [];
    for (let i = 0; i < config.nLayers; i++)
      for (const name of LAYER_PARAMS) parts.push(p(`h${i}.${name}`).reshape([-1]));
    return tf.concat(parts) as tf.Tensor1D;
  });
}

function source(C: number, H: number, F: number): string {
  const hd = C / H;
  // y[j] = Σ_k in[k] · W[off + k·M + j] (+ bias, + residual), thread tid taking j = tid, tid + 64, …
  const sum = (input: string, K: number, off: string, M: number) =>
    `var acc = 0.0;
            for (var k = 0; k < ${K}; k = k + 1) { acc = acc + ${input}[k] * W[${off} + k * ${M} + j]; }`;
  return `
      struct Uniforms { scale : f32, cap : i32, tokens : i32, layer : i32, queries : i32, };
      @group(0) @binding(0) var<storage, read_write> Y : array<f32>;
      @group(0) @binding(1) var<storage, read_write> K : array<f32>;
      @group(0) @binding(2) var<storage, read_write> V : array<f32>;
      @group(0) @binding(3) var<storage, read> X : array<f32>;
      @group(0) @binding(4) var<storage, read> W : array<f32>;
      @group(0) @binding(5) var<storage, read> Meta : array<f32>;
      @group(0) @binding(6) var<storage, read> Slopes : array<f32>;
      @group(0) @binding(7) var<uniform> u : Uniforms;
      var<workgroup> xs : array<f32, ${C}>;
      var<workgroup> xn : array<f32, ${C}>;
      var<workgroup> ys : array<f32, ${C}>;
      var<workgroup> x2 : array<f32, ${C}>;
      var<workgroup> qkv : array<f32, ${3 * C}>;
      var<workgroup> hid : array<f32, ${F}>;
      var<workgroup> score : array<f32, ${DECODE_ATTENTION_MAX_SLOTS}>;
      var<workgroup> part : array<f32, ${WORKGROUP}>;

      fn reduceSum(tid : i32, v : f32) -> f32 {
        part[tid] = v;
        workgroupBarrier();
        for (var w = ${WORKGROUP / 2}; w > 0; w = w >> 1) {
          if (tid < w) { part[tid] = part[tid] + part[tid + w]; }
          workgroupBarrier();
        }
        let r = part[0];
        workgroupBarrier();
        return r;
      }

      fn reduceMax(tid : i32, v : f32) -> f32 {
        part[tid] = v;
        workgroupBarrier();
        for (var w = ${WORKGROUP / 2}; w > 0; w = w >> 1) {
          if (tid < w) { part[tid] = max(part[tid], part[tid + w]); }
          workgroupBarrier();
        }
        let r = part[0];
        workgroupBarrier();
        return r;
      }

      // xn = LayerNorm(src) with gain and bias at W[off], W[off + C] (kernels/layerNorm.ts's formula)
      fn layerNorm(tid : i32, fromResidual : bool, off : i32) {
        var s = 0.0;
        for (var c = tid; c < ${C}; c = c + ${WORKGROUP}) { s = s + select(xs[c], x2[c], fromResidual); }
        let mean = reduceSum(tid, s) / f32(${C});
        var q = 0.0;
        for (var c = tid; c < ${C}; c = c + ${WORKGROUP}) {
          let d = select(xs[c], x2[c], fromResidual) - mean;
          q = q + d * d;
        }
        let rstd = inverseSqrt(reduceSum(tid, q) / f32(${C}) + ${EPS});
        for (var c = tid; c < ${C}; c = c + ${WORKGROUP}) {
          xn[c] = (select(xs[c], x2[c], fromResidual) - mean) * rstd * W[off + c] + W[off + ${C} + c];
        }
        workgroupBarrier();
      }

      @compute @workgroup_size(${WORKGROUP}, 1, 1)
      fn main(@builtin(workgroup_id) workgroup : vec3<u32>, @builtin(local_invocation_id) local : vec3<u32>) {
        let tid = i32(local.x);
        let wg = i32(workgroup.x);
        let row = i32(Meta[2 * u.queries + wg]); // the cache row this workgroup owns
        // offsets of the layer's weights in W (packLayers's order)
        let base = u.layer * ${layerFloats(C, F)};
        let oQkv = base + ${2 * C};
        let oBqkv = oQkv + ${3 * C * C};
        let oProj = oBqkv + ${3 * C};
        let oBproj = oProj + ${C * C};
        let oLn2 = oBproj + ${C};
        let oFc = oLn2 + ${2 * C};
        let oBfc = oFc + ${C * F};
        let oOut = oBfc + ${F};
        let oBout = oOut + ${F * C};
        for (var t = 0; t < u.tokens; t = t + 1) {
          let q = wg * u.tokens + t;
          for (var c = tid; c < ${C}; c = c + ${WORKGROUP}) { xs[c] = X[q * ${C} + c]; }
          workgroupBarrier();
          layerNorm(tid, false, base);
          for (var j = tid; j < ${3 * C}; j = j + ${WORKGROUP}) {
            ${sum('xn', C, 'oQkv', 3 * C)}
            qkv[j] = acc + W[oBqkv + j];
          }
          workgroupBarrier();
          // the token's key and value into its cache row at its slot (< 0: none: a row not decoding, a padded token)
          let slot = i32(Meta[u.queries + q]);
          if (slot >= 0 && slot < u.cap) {
            for (var e = tid; e < ${C}; e = e + ${WORKGROUP}) {
              let h = e / ${hd};
              let dst = ((row * ${H} + h) * u.cap + slot) * ${hd} + e % ${hd};
              K[dst] = qkv[${C} + e];
              V[dst] = qkv[${2 * C} + e];
            }
          }
          storageBarrier();
          workgroupBarrier();
          let last = min(i32(Meta[q]), u.cap - 1); // the query's own slot: it sees 0..last
          for (var h = 0; h < ${H}; h = h + 1) {
            let kBase = (row * ${H} + h) * u.cap * ${hd};
            let slope = Slopes[h];
            var m = -3.402823e+38;
            for (var s = tid; s <= last; s = s + ${WORKGROUP}) {
              var dot = 0.0;
              for (var d = 0; d < ${hd}; d = d + 1) { dot = dot + qkv[h * ${hd} + d] * K[kBase + s * ${hd} + d]; }
              let v = dot * u.scale + slope * f32(s - last);
              score[s] = v;
              m = max(m, v);
            }
            let rowMax = reduceMax(tid, m);
            var total = 0.0;
            for (var s = tid; s <= last; s = s + ${WORKGROUP}) {
              let e = exp(score[s] - rowMax);
              score[s] = e;
              total = total + e;
            }
            total = reduceSum(tid, total);
            for (var d = tid; d < ${hd}; d = d + ${WORKGROUP}) {
              var acc = 0.0;
              for (var s = 0; s <= last; s = s + 1) { acc = acc + score[s] * V[kBase + s * ${hd} + d]; }
              ys[h * ${hd} + d] = acc / total;
            }
            workgroupBarrier();
          }
          for (var j = tid; j < ${C}; j = j + ${WORKGROUP}) {
            ${sum('ys', C, 'oProj', C)}
            acc = acc + W[oBproj + j];
            x2[j] = xs[j] + acc;
          }
          workgroupBarrier();
          layerNorm(tid, true, oLn2);
          for (var j = tid; j < ${F}; j = j + ${WORKGROUP}) {
            ${sum('xn', C, 'oFc', F)}
            acc = acc + W[oBfc + j];
            let g = (acc + ((acc * acc) * acc) * 0.044715) * ${GELU_2K};
            hid[j] = acc * (1.0 / (1.0 + exp(-1.0 * g)));
          }
          workgroupBarrier();
          for (var j = tid; j < ${C}; j = j + ${WORKGROUP}) {
            ${sum('hid', F, 'oOut', C)}
            acc = acc + W[oBout + j];
            Y[q * ${C} + j] = x2[j] + acc;
          }
          workgroupBarrier();
        }
      }`;
}

registerWebGPUKernel('StarDecodeLayer', ({ inputs, backend, attrs }) => {
  const webgpu = backend as WebGPUBackend;
  const { x, keys, values, weights, meta, slopes } = inputs as Record<string, tf.TensorInfo>;
  const [, H, cap] = keys.shape;
  const [Q, C] = x.shape;
  const { scale, layer, tokens, dFF } = attrs as { scale: number; layer: number; tokens: number; dFF: number };
  const y = webgpu.makeTensorInfo([Q, C], 'float32');
  dispatchRaw(webgpu, {
    key: `star_decode_layer_${C}_${H}_${dFF}`,
    source: source(C, H, dFF),
    buffers: [y, keys, values, x, weights, meta, slopes],
    uniforms: [
      { type: 'float32', data: [scale] },
      ...[cap, tokens, layer, Q].map((v) => ({ type: 'int32' as const, data: [v] })),
    ],
    workgroups: Q / tokens,
  });
  return y;
});

/** where a layer's tokens go: `meta` [2Q + R] float32 holds each query's position (it sees slots 0..pos), the slot its
 *  key and value are written to (−1: none), then each of the R = Q / tokens cache rows (a workgroup's) */
export interface LayerRows {
  meta: tf.Tensor1D;
  /** tokens a cache row: 1 in a decode step, n in a prefill (row j's are queries j·n…) */
  tokens: number;
}

/**
 * Layer `layer` over x [Q, C] in one dispatch: the cache's keys and values [B, H, cap, hd] written in place
 * (writableInPlace: the caller takes them as the cache's new tensors), x's next value returned. `weights` is
 * packLayers's; `slopes` [H] ALiBi's slopes (zeros without); webgpu only (the caller checks decodeLayerFits).
 */
export function decodeLayer(config: ModelConfig, x: tf.Tensor2D, keys: tf.Tensor4D, values: tf.Tensor4D,
  weights: tf.Tensor1D, layer: number, rows: LayerRows, slopes: tf.Tensor1D, scale: number): tf.Tensor2D {
  const [Q, C] = x.shape;
  const [, H, cap] = keys.shape;
  const R = Q / rows.tokens;
  if (C !== config.dModel || H !== config.nHeads || !Number.isInteger(R) || rows.meta.shape[0] !== 2 * Q + R)
    throw new Error(`decodeLayer: x [${x.shape}], keys [${keys.shape}], meta [${rows.meta.shape}] do not fit`);
  if (weights.shape[0] !== config.nLayers * layerFloats(C, config.dFF))
    throw new Error(`decodeLayer: ${weights.shape[0]} packed weights, not ${config.nLayers} layers'`);
  if (cap > DECODE_ATTENTION_MAX_SLOTS)
    throw new Error(`decodeLayer: ${cap} cache slots, more than ${DECODE_ATTENTION_MAX_SLOTS}`);
  const inputs = { x, keys, values, weights, meta: rows.meta, slopes };
  const attrs = { scale, layer, tokens: rows.tokens, dFF: config.dFF };
  return tf.engine().runKernel('StarDecodeLayer', inputs, attrs) as tf.Tensor2D;
}
