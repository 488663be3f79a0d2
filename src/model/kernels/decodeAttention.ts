// Attention of one decoding step over the KV cache, in one WebGPU dispatch a layer (Policy.step on
// webgpu). The plain path is ~6 dispatches a layer — q·Kᵀ, + bias, softmax, ·V, a transpose, the
// scaling — plus the [B, H, 1, cap] bias itself, built on the CPU every step, uploaded and broadcast
// over the heads (2 more). This kernel reads the cache where it lies: one workgroup per (row, head), its
// 64 threads take the row's visible slots (0..pos: the causal mask is the loop bound, no bias tensor)
// in turn, score them with ALiBi's −m_h·(pos − slot) added in the shader, reduce max and sum in
// workgroup memory, and the first hd threads each write one output element Σ p·v. Inference only: it
// has no gradient. Its values match the plain path within float rounding (bench/browser/kernelCheck.ts).
import * as tf from '@tensorflow/tfjs';
import { registerWebGPUKernel, type WebGPUBackend, type WebGPUProgram } from './webgpu.ts';
import { dispatchRaw } from './rawDispatch.ts';

/** the most cache slots a row may hold for this kernel (its scores sit in workgroup memory: 4 KB) */
export const DECODE_ATTENTION_MAX_SLOTS = 1024;
const WORKGROUP = 64;

/**
 * The attention of one query row and head (a workgroup: `row` = b·H + h, thread `tid`) over its cache row at
 * `kBase`, written to `out`; `u` names the uniforms (scale, heads, cap, hd, qStride, rows), `q` the queries'
 * buffer. `inRange`: false for the spare workgroups of a dispatch tfjs folded into 2-D (more than 65,535 rows:
 * a stacked prefill), which compute row rows − 1's values and write nothing.
 */
function attentionBody(u: string, out: string, q: string): string {
  return `
        let hd = ${u}.hd;
        let cap = ${u}.cap;
        let last = min(i32(Pos[row / ${u}.heads]), cap - 1); // the query's own slot: it sees 0..last
        let slope = Slopes[row % ${u}.heads];
        let qBase = (row / ${u}.heads) * ${u}.qStride + (row % ${u}.heads) * hd; // row b's head h
        var m = -3.402823e+38;
        for (var s = tid; s <= last; s = s + ${WORKGROUP}) {
          var dot = 0.0;
          for (var d = 0; d < hd; d = d + 1) { dot = dot + ${q}[qBase + d] * K[kBase + s * hd + d]; }
          let v = dot * ${u}.scale + slope * f32(s - last);
          score[s] = v;
          m = max(m, v);
        }
        part[tid] = m;
        workgroupBarrier();
        for (var w = ${WORKGROUP / 2}; w > 0; w = w >> 1) {
          if (tid < w) { part[tid] = max(part[tid], part[tid + w]); }
          workgroupBarrier();
        }
        let rowMax = part[0];
        workgroupBarrier();
        var sum = 0.0;
        for (var s = tid; s <= last; s = s + ${WORKGROUP}) {
          let e = exp(score[s] - rowMax);
          score[s] = e;
          sum = sum + e;
        }
        part[tid] = sum;
        workgroupBarrier();
        for (var w = ${WORKGROUP / 2}; w > 0; w = w >> 1) {
          if (tid < w) { part[tid] = part[tid] + part[tid + w]; }
          workgroupBarrier();
        }
        let total = part[0];
        for (var d = tid; d < hd && inRange; d = d + ${WORKGROUP}) {
          var acc = 0.0;
          for (var s = 0; s <= last; s = s + 1) { acc = acc + score[s] * V[kBase + s * hd + d]; }
          ${out}[row * hd + d] = acc / total;
        }`;
}

const workgroupMemory = `
      var<workgroup> part : array<f32, ${WORKGROUP}>;
      var<workgroup> score : array<f32, ${DECODE_ATTENTION_MAX_SLOTS}>;`;

/** `indexed`: query q reads cache row Rows[q] (a prefill's R·n queries), else cache row q (a decode step) */
function program(rows: number, hd: number, indexed = false): WebGPUProgram {
  const cacheRow = indexed ? '(i32(Rows[row / uniforms.heads]) * uniforms.heads + row % uniforms.heads)' : 'row';
  return {
    variableNames: ['Q', 'K', 'V', 'Pos', 'Slopes', ...(indexed ? ['Rows'] : [])],
    outputShape: [rows, hd],
    shaderKey: indexed ? 'star_prefill_attention' : 'star_decode_attention',
    dispatchLayout: { x: [0] },
    dispatch: [rows, 1, 1],
    workgroupSize: [WORKGROUP, 1, 1],
    uniforms: 'scale : f32, heads : i32, cap : i32, hd : i32, qStride : i32, rows : i32,',
    getUserCode: () => `${workgroupMemory}
      fn main(index : i32) {
        let inRange = index / ${WORKGROUP} < uniforms.rows;
        let row = min(index / ${WORKGROUP}, uniforms.rows - 1); // b·H + h
        let tid = i32(localId.x);
        let kBase = ${cacheRow} * uniforms.cap * uniforms.hd;${attentionBody('uniforms', 'result', 'Q')}
      }`,
  };
}

// A decode step's attention that first writes the step's fresh key and value rows (read out of qkv) into the
// cache at each row's slot (Slot[b]; < 0: the row is not decoding, nothing written), then attends: the two cache
// writes of a layer and its attention in one dispatch. The workgroup of (b, h) is the only one that writes or
// reads cache row b's head h, so a barrier inside the workgroup orders its write before its reads.
const writingSource = `
      struct Uniforms { scale : f32, heads : i32, cap : i32, hd : i32, qStride : i32, rows : i32, };
      @group(0) @binding(0) var<storage, read_write> Y : array<f32>;
      @group(0) @binding(1) var<storage, read_write> K : array<f32>;
      @group(0) @binding(2) var<storage, read_write> V : array<f32>;
      @group(0) @binding(3) var<storage, read> Qkv : array<f32>;
      @group(0) @binding(4) var<storage, read> Pos : array<f32>;
      @group(0) @binding(5) var<storage, read> Slopes : array<f32>;
      @group(0) @binding(6) var<storage, read> Slot : array<f32>;
      @group(0) @binding(7) var<uniform> u : Uniforms;${workgroupMemory}
      @compute @workgroup_size(${WORKGROUP}, 1, 1)
      fn main(@builtin(workgroup_id) workgroup : vec3<u32>, @builtin(local_invocation_id) local : vec3<u32>) {
        let row = i32(workgroup.x); // b·H + h (one dispatch never exceeds the device's workgroups: dispatchRaw)
        let inRange = true;
        let tid = i32(local.x);
        let kBase = row * u.cap * u.hd;
        let slot = i32(Slot[row / u.heads]);
        let fresh = (row / u.heads) * u.qStride + (row % u.heads) * u.hd; // q of head h; its k is C on, its v 2C
        if (slot >= 0 && slot < u.cap) {
          for (var d = tid; d < u.hd; d = d + ${WORKGROUP}) {
            K[kBase + slot * u.hd + d] = Qkv[fresh + u.heads * u.hd + d];
            V[kBase + slot * u.hd + d] = Qkv[fresh + 2 * u.heads * u.hd + d];
          }
        }
        storageBarrier();${attentionBody('u', 'Y', 'Qkv')}
      }`;

registerWebGPUKernel('StarDecodeAttention', ({ inputs, backend, attrs }) => {
  const { q, keys, values, pos, slopes } = inputs as Record<string, tf.TensorInfo>;
  const [B, H, cap, hd] = keys.shape;
  const { scale, qStride } = attrs as { scale: number; qStride: number };
  const out = (backend as WebGPUBackend).runWebGPUProgram(
    program(B * H, hd),
    [q, keys, values, pos, slopes],
    'float32',
    [
      { type: 'float32', data: [scale] },
      { type: 'int32', data: [H] },
      { type: 'int32', data: [cap] },
      { type: 'int32', data: [hd] },
      { type: 'int32', data: [qStride] },
      { type: 'int32', data: [B * H] },
    ],
  );
  return { ...out, shape: [B * H, hd] };
});

registerWebGPUKernel('StarPrefillAttention', ({ inputs, backend, attrs }) => {
  const { q, keys, values, pos, slopes, rows } = inputs as Record<string, tf.TensorInfo>;
  const [, H, cap, hd] = keys.shape;
  const Q = pos.shape[0];
  const { scale, qStride } = attrs as { scale: number; qStride: number };
  const ints = [H, cap, hd, qStride, Q * H].map((v) => ({ type: 'int32', data: [v] }));
  const out = (backend as WebGPUBackend).runWebGPUProgram(
    program(Q * H, hd, true),
    [q, keys, values, pos, slopes, rows],
    'float32',
    [{ type: 'float32', data: [scale] }, ...ints],
  );
  return { ...out, shape: [Q * H, hd] };
});

registerWebGPUKernel('StarDecodeAttentionWritingCache', ({ inputs, backend, attrs }) => {
  const webgpu = backend as WebGPUBackend;
  const { qkv, keys, values, pos, slopes, slots } = inputs as Record<string, tf.TensorInfo>;
  const [B, H, cap, hd] = keys.shape;
  const { scale } = attrs as { scale: number };
  const y = webgpu.makeTensorInfo([B * H, hd], 'float32');
  dispatchRaw(webgpu, {
    key: 'star_decode_attention_writing_cache',
    source: writingSource,
    buffers: [y, keys, values, qkv, pos, slopes, slots],
    uniforms: [
      { type: 'float32', data: [scale] },
      ...[H, cap, hd, 3 * H * hd, B * H].map((v) => ({ type: 'int32' as const, data: [v] })),
    ],
    workgroups: B * H,
  });
  return y;
});

/** the positions a decode step's queries sit at, in place of a bias tensor (the kernel masks and adds ALiBi itself) */
export interface DecodePositions {
  /** [B] float32: each row's query slot (its length before this token) */
  pos: tf.Tensor1D;
  /** [H] float32: ALiBi's slope per head (zeros without ALiBi) */
  slopes: tf.Tensor1D;
}

/** q [B, H, 1, hd] (unscaled), keys/values [B, H, cap, hd] → [B, 1, H·hd]; webgpu only (the caller checks) */
export function decodeAttention(
  q: tf.Tensor4D,
  keys: tf.Tensor4D,
  values: tf.Tensor4D,
  at: DecodePositions,
  scale: number,
): tf.Tensor3D {
  const [B, H, n, hd] = q.shape;
  if (n !== 1) throw new Error(`decodeAttention: one query a row, got ${n}`);
  if (keys.shape[2] > DECODE_ATTENTION_MAX_SLOTS)
    throw new Error(`decodeAttention: ${keys.shape[2]} cache slots, more than ${DECODE_ATTENTION_MAX_SLOTS}`);
  const y = tf
    .engine()
    .runKernel(
      'StarDecodeAttention',
      { q, keys, values, pos: at.pos, slopes: at.slopes },
      { scale, qStride: H * hd },
    ) as tf.Tensor; // [B·H, hd]
  return y.reshape([B, 1, H * hd]);
}

/** decodeAttention with the queries read where the fused qkv projection left them: qkv [B, 3C] (row b's
 *  q heads first) → [B, C]; no split of qkv into q, k, v (model/fusedDecode.ts) */
export function decodeAttentionFromQkv(
  qkv: tf.Tensor2D,
  keys: tf.Tensor4D,
  values: tf.Tensor4D,
  at: DecodePositions,
  scale: number,
): tf.Tensor2D {
  const [B, H, cap, hd] = keys.shape;
  if (qkv.shape[0] !== B || qkv.shape[1] !== 3 * H * hd)
    throw new Error(`decodeAttentionFromQkv: qkv [${qkv.shape}] does not fit keys [${keys.shape}]`);
  if (cap > DECODE_ATTENTION_MAX_SLOTS)
    throw new Error(`decodeAttention: ${cap} cache slots, more than ${DECODE_ATTENTION_MAX_SLOTS}`);
  const y = tf
    .engine()
    .runKernel(
      'StarDecodeAttention',
      { q: qkv, keys, values, pos: at.pos, slopes: at.slopes },
      { scale, qStride: 3 * H * hd },
    ) as tf.Tensor; // [B·H, hd]
  return y.reshape([B, H * hd]);
}

/**
 * decodeAttentionFromQkv that first writes each decoding row's fresh key and value (qkv's k and v of row b) into
 * keys and values at slot slots[b] ([B] float32; −1: row b is not decoding), in place, in the same dispatch.
 * keys and values must be writableInPlace; the caller takes them as the cache's new tensors (clone).
 */
export function decodeAttentionWritingCache(qkv: tf.Tensor2D, keys: tf.Tensor4D, values: tf.Tensor4D,
  at: DecodePositions, slots: tf.Tensor1D, scale: number): tf.Tensor2D {
  const [B, H, cap, hd] = keys.shape;
  if (qkv.shape[0] !== B || qkv.shape[1] !== 3 * H * hd || slots.shape[0] !== B || slots.dtype !== 'float32')
    throw new Error(`decodeAttentionWritingCache: qkv [${qkv.shape}], slots [${slots.shape}] do not fit keys [${keys.shape}]`);
  if (cap > DECODE_ATTENTION_MAX_SLOTS)
    throw new Error(`decodeAttention: ${cap} cache slots, more than ${DECODE_ATTENTION_MAX_SLOTS}`);
  const inputs = { qkv, keys, values, pos: at.pos, slopes: at.slopes, slots };
  const y = tf.engine().runKernel('StarDecodeAttentionWritingCache', inputs, { scale }) as tf.Tensor; // [B·H, hd]
  return y.reshape([B, H * hd]);
}

/** a prefill's attention, queries read out of qkv [Q, 3C]: query q attends cache row rows[q] ([Q] float32)
 *  over its slots 0..at.pos[q] (its own token and the ones before, already written) → [Q, C] */
export function prefillAttentionFromQkv(qkv: tf.Tensor2D, keys: tf.Tensor4D, values: tf.Tensor4D, at: DecodePositions,
  rows: tf.Tensor1D, scale: number): tf.Tensor2D {
    const [, H, cap, hd] = keys.shape;
    const Q = qkv.shape[0];
    if (qkv.shape[1] !== 3 * H * hd || at.pos.shape[0] !== Q || rows.shape[0] !== Q) {
      throw new Error(
        `prefillAttentionFromQkv: qkv [${qkv.shape}], ${at.pos.shape[0]} positions and ` +
          `${rows.shape[0]} rows do not fit keys [${keys.shape}]`,
      );
    }
    if (cap > DECODE_ATTENTION_MAX_SLOTS) {
      throw new Error(`decodeAttention: ${cap} cache slots, more than ${DECODE_ATTENTION_MAX_SLOTS}`);
    }
    const inputs = { q: qkv, keys, values, pos: at.pos, slopes: at.slopes, rows };
    const y = tf.engine().runKernel('StarPrefillAttention', inputs, { scale, qStride: 3 * H * hd }) as tf.Tensor; // [Q·H, hd]
    return y.reshape([Q, H * hd]);
  }
