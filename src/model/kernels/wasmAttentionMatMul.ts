// The cached attention's two batched products on tfjs `wasm` — scores = q·kᵀ [N, n, cap] and
// p·v [N, n, hd] — with WebAssembly SIMD, bit for bit what tfjs computes. tfjs-wasm runs a batched
// matMul (any batch > 1) as a scalar loop, ~1.1 GMAC/s, and that loop was ~60 % of a decode step and
// ~75 % of a prefill. Its sums have a fixed order: out[i, j] = Σ over k-blocks of 48 of (Σ_k a·b from
// 0, in k order), each block's sum added to out in block order. Four output columns in the four lanes
// of a vector keep that order exactly — every lane is one output's own sequential sum, with the same
// f32 multiplies and adds (no fused multiply-add in WebAssembly) — so the floats do not change; only
// the speed does. q·kᵀ reads four keys' rows four floats at a time and turns them into columns with
// shuffles in registers; p·v reads v's rows as they lie. The module (~1 KB) is emitted here, with no
// toolchain, imports tfjs's own heap (its memory, shared in the threaded build) and is registered like
// wasmRows.ts. Columns past the last multiple of 4 are summed one at a time, in the same order.
// Where it cannot be instantiated (no SIMD), the caller runs tf.matMul.
import * as tf from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { F32, I32, V128, instantiateOnHeap, memoryImport, name, op, section, uleb, vec, type WasmModule } from './wasmEmit.ts';

const KERNEL = 'StarAttentionMatMul';
/** tfjs-wasm's k-block (batch_mat_mul_impl.cc kBlockSize): sums restart every 48 products */
const K_BLOCK = 48;

/** while (local < limit) { body; local += step } — body runs at least once (callers guarantee limit > start) */
const doWhile = (local: number, limit: number[], step: number[], body: number[][]) => [
  ...op.loop, ...body.flat(), ...op.get(local), ...step, ...op.add, ...op.tee(local), ...limit, ...op.ltU, ...op.brIf(0), ...op.end,
];

/** the locals both vector products share (after their 7 parameters a, b, out, n, K, J, Jv) */
const P = { a: 0, b: 1, out: 2, n: 3, K: 4, J: 5, Jv: 6, aEnd: 7, pa: 8, k0: 9, kEnd: 10, j: 11, rowA: 12, rowO: 13, paEnd: 14, Jb: 15, vsum: 16 } as const;
/** the first local after P's: a product's own */
const OWN = 17;

/**
 * The loops both vector products share: rows i; k-blocks of 48 (kEnd = min(k0 + 48, K)); vector columns
 * j (a byte offset, 16 a step) up to Jv. For each, `sum` must leave vsum = Σ_{k0 ≤ k < kEnd} a[i, k]·b(k,
 * j..j+3) in k order from +0, with pa walking a[i, k0..kEnd); then out[i, j..j+3] = (+0 for the first
 * block, else out) + vsum — tfjs's `current + sum` on a zeroed output. `setup` runs once first.
 */
function vectorProduct(setup: number[], sum: number[][]): number[] {
  const { a, out, n, K, Jv, aEnd, pa, k0, kEnd, j, rowA, rowO, paEnd, Jb, vsum } = P;
  return [
    ...op.get(P.J), ...op.i32(4), ...op.mul, ...op.set(Jb),
    ...op.get(a), ...op.get(n), ...op.get(K), ...op.mul, ...op.i32(4), ...op.mul, ...op.add, ...op.set(aEnd),
    ...op.get(a), ...op.set(rowA), ...op.get(out), ...op.set(rowO),
    ...setup,
    ...op.loop, // rows i
    ...op.i32(0), ...op.set(k0),
    ...op.loop, // k-blocks
    ...op.get(k0), ...op.i32(K_BLOCK), ...op.add, ...op.tee(kEnd), ...op.get(K), ...op.ltU, ...op.eqz,
    0x04, 0x40, ...op.get(K), ...op.set(kEnd), ...op.end,
    ...op.i32(0), ...op.set(j),
    ...doWhile(j, [...op.get(Jv), ...op.i32(4), ...op.mul], op.i32(16), [
      op.v128Zero, op.set(vsum),
      op.get(rowA), op.get(k0), op.i32(4), op.mul, op.add, op.set(pa),
      op.get(rowA), op.get(kEnd), op.i32(4), op.mul, op.add, op.set(paEnd),
      ...sum,
      op.get(rowO), op.get(j), op.add,
      op.get(k0), op.eqz, op.ifV128, op.v128Zero, op.else, op.get(rowO), op.get(j), op.add, op.v128Load, op.end,
      op.get(vsum), op.f32x4Add, op.v128Store,
    ]),
    ...op.get(kEnd), ...op.tee(k0), ...op.get(K), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...op.get(rowO), ...op.get(Jb), ...op.add, ...op.set(rowO),
    ...op.get(rowA), ...op.get(K), ...op.i32(4), ...op.mul, ...op.add, ...op.tee(rowA), ...op.get(aEnd), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...op.end,
  ];
}

/**
 * mm(a, b, out, n, K, J, Jv): out [n, J] = a [n, K] · b [K, J] in its first Jv columns (Jv a positive
 * multiple of 4), byte addresses, K ≥ 1, n ≥ 1: vsum += splat(a[i, k]) · b[k, j..j+3]. Own local: pb.
 */
function mmBody(): number[] {
  const { b, k0, j, pa, paEnd, Jb, vsum } = P;
  const pb = OWN;
  const locals = vec([[...uleb(OWN - 7 - 1), I32], [1, V128], [1, I32]]);
  const sum = [
    op.get(b), op.get(k0), op.get(Jb), op.mul, op.add, op.get(j), op.add, op.set(pb),
    op.loop,
    op.get(vsum), op.get(pa), op.f32Load, op.f32x4Splat, op.get(pb), op.v128Load, op.f32x4Mul, op.f32x4Add, op.set(vsum),
    op.get(pb), op.get(Jb), op.add, op.set(pb),
    op.get(pa), op.i32(4), op.add, op.tee(pa), op.get(paEnd), op.ltU, op.brIf(0),
    op.end,
  ];
  return [...locals, ...vectorProduct([], sum)];
}

/**
 * qk(a, b, out, n, K, J, Jv): out [n, J] = a [n, K] · b [J, K]ᵀ in its first Jv columns (Jv a positive
 * multiple of 4), byte addresses, K a multiple of 4. Four keys' rows are read four floats at a time and
 * turned into four columns in registers (a 4×4 transpose by shuffles), so lane l still sums
 * a[i, k]·b[j + l, k] in k order. Own locals: p (key rows j.., at k), Kb, K2b, K3b; r0–r3, t0–t3 (v128).
 */
function qkBody(): number[] {
  const { b, K, k0, j, pa, paEnd, vsum } = P;
  const [p, Kb, K2b, K3b] = [OWN, OWN + 1, OWN + 2, OWN + 3];
  const r = [OWN + 4, OWN + 5, OWN + 6, OWN + 7];
  const t = [OWN + 8, OWN + 9, OWN + 10, OWN + 11];
  const locals = vec([[...uleb(OWN - 7 - 1), I32], [1, V128], [4, I32], [8, V128]]);
  const lowPairs = [0, 4, 1, 5]; // (x[0], y[0], x[1], y[1])
  const highPairs = [2, 6, 3, 7]; // (x[2], y[2], x[3], y[3])
  // vsum += splat(a[i, k + c]) · column c
  const term = (column: number[], c: number) => [
    ...op.get(vsum), ...op.get(pa), 0x2a, 0x02, ...uleb(4 * c), ...op.f32x4Splat, ...column, ...op.f32x4Mul, ...op.f32x4Add, ...op.set(vsum),
  ];
  const setup = [...op.get(K), ...op.i32(4), ...op.mul, ...op.tee(Kb), ...op.get(Kb), ...op.add, ...op.tee(K2b), ...op.get(Kb), ...op.add, ...op.set(K3b)];
  const sum = [
    // p = b + (j/4 keys)·K·4 + k0·4 = b + j·K + k0·4 (j in bytes)
    op.get(b), op.get(j), op.get(K), op.mul, op.add, op.get(k0), op.i32(4), op.mul, op.add, op.set(p),
    op.loop,
    // r_l = b[j + l, k..k+3]
    op.get(p), op.v128Load, op.set(r[0]),
    op.get(p), op.get(Kb), op.add, op.v128Load, op.set(r[1]),
    op.get(p), op.get(K2b), op.add, op.v128Load, op.set(r[2]),
    op.get(p), op.get(K3b), op.add, op.v128Load, op.set(r[3]),
    op.get(r[0]), op.get(r[1]), op.shuffle(lowPairs), op.set(t[0]),
    op.get(r[2]), op.get(r[3]), op.shuffle(lowPairs), op.set(t[1]),
    op.get(r[0]), op.get(r[1]), op.shuffle(highPairs), op.set(t[2]),
    op.get(r[2]), op.get(r[3]), op.shuffle(highPairs), op.set(t[3]),
    // columns k, k+1, k+2, k+3: (r0[c], r1[c], r2[c], r3[c])
    term([...op.get(t[0]), ...op.get(t[1]), ...op.shuffle([0, 1, 4, 5])], 0),
    term([...op.get(t[0]), ...op.get(t[1]), ...op.shuffle([2, 3, 6, 7])], 1),
    term([...op.get(t[2]), ...op.get(t[3]), ...op.shuffle([0, 1, 4, 5])], 2),
    term([...op.get(t[2]), ...op.get(t[3]), ...op.shuffle([2, 3, 6, 7])], 3),
    op.get(p), op.i32(16), op.add, op.set(p),
    op.get(pa), op.i32(16), op.add, op.tee(pa), op.get(paEnd), op.ltU, op.brIf(0),
    op.end,
  ];
  return [...locals, ...vectorProduct(setup, sum)];
}

/**
 * rest(a, b, out, n, K, J, j0, sk, sj): the columns j0 ≤ j < J of out [n, J] = a [n, K] · b, one float
 * at a time in tfjs's order, b's element (k, j) at b + (k·sk + j·sj)·4 (b [K, J]: sk = J, sj = 1; bᵀ
 * with b [J, K]: sk = 1, sj = K). Locals: 0 a, 1 b, 2 out, 3 n, 4 K, 5 J, 6 j0, 7 sk, 8 sj | 9 aEnd,
 * 10 rowA, 11 rowO, 12 j, 13 k0, 14 kEnd, 15 k | 16 s (f32)
 */
function restBody(): number[] {
  const [a, b, out, n, K, J, j0, sk, sj, aEnd, rowA, rowO, j, k0, kEnd, k, sum] = Array.from({ length: 17 }, (_, i) => i);
  const locals = vec([[...uleb(7), I32], [1, F32]]);
  const code = [
    ...op.get(a), ...op.get(n), ...op.get(K), ...op.mul, ...op.i32(4), ...op.mul, ...op.add, ...op.set(aEnd),
    ...op.get(a), ...op.set(rowA), ...op.get(out), ...op.set(rowO),
    ...op.loop, // rows i
    ...op.get(j0), ...op.set(j),
    ...op.loop, // columns j
    ...op.i32(0), ...op.set(k0),
    ...op.loop, // k-blocks of 48
    ...op.get(k0), ...op.i32(K_BLOCK), ...op.add, ...op.tee(kEnd), ...op.get(K), ...op.ltU, ...op.eqz,
    0x04, 0x40, ...op.get(K), ...op.set(kEnd), ...op.end,
    ...op.f32Zero, ...op.set(sum), ...op.get(k0), ...op.set(k),
    ...op.loop, // s += a[i, k] · b(k, j)
    ...op.get(sum),
    ...op.get(rowA), ...op.get(k), ...op.i32(4), ...op.mul, ...op.add, ...op.f32Load,
    ...op.get(b), ...op.get(k), ...op.get(sk), ...op.mul, ...op.get(j), ...op.get(sj), ...op.mul, ...op.add, ...op.i32(4), ...op.mul, ...op.add, ...op.f32Load,
    ...op.f32Mul, ...op.f32Add, ...op.set(sum),
    ...op.get(k), ...op.i32(1), ...op.add, ...op.tee(k), ...op.get(kEnd), ...op.ltU, ...op.brIf(0),
    ...op.end,
    // out[i, j] = (+0 for the first block, else out[i, j]) + s
    ...op.get(rowO), ...op.get(j), ...op.i32(4), ...op.mul, ...op.add,
    ...op.get(k0), ...op.eqz, ...op.ifF32, ...op.f32Zero, ...op.else, ...op.get(rowO), ...op.get(j), ...op.i32(4), ...op.mul, ...op.add, ...op.f32Load, ...op.end,
    ...op.get(sum), ...op.f32Add, ...op.f32Store,
    ...op.get(kEnd), ...op.tee(k0), ...op.get(K), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...op.get(j), ...op.i32(1), ...op.add, ...op.tee(j), ...op.get(J), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...op.get(rowO), ...op.get(J), ...op.i32(4), ...op.mul, ...op.add, ...op.set(rowO),
    ...op.get(rowA), ...op.get(K), ...op.i32(4), ...op.mul, ...op.add, ...op.tee(rowA), ...op.get(aEnd), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...op.end,
  ];
  return [...locals, ...code];
}

/** tr(src, dst, R, C): dst [C, R] = src [R, C]ᵀ, byte addresses. Locals: 0 src, 1 dst, 2 R, 3 C | 4 r, 5 c, 6 ps */
function trBody(): number[] {
  const [src, dst, R, C, r, c, ps] = Array.from({ length: 7 }, (_, i) => i);
  const locals = vec([[...uleb(3), I32]]);
  const code = [
    ...op.i32(0), ...op.set(r), ...op.get(src), ...op.set(ps),
    ...op.loop,
    ...op.i32(0), ...op.set(c),
    ...op.loop,
    // dst[(c·R + r)·4] = src[ps]; ps += 4
    ...op.get(dst), ...op.get(c), ...op.get(R), ...op.mul, ...op.get(r), ...op.add, ...op.i32(4), ...op.mul, ...op.add,
    ...op.get(ps), ...op.f32Load, ...op.f32Store,
    ...op.get(ps), ...op.i32(4), ...op.add, ...op.set(ps),
    ...op.get(c), ...op.i32(1), ...op.add, ...op.tee(c), ...op.get(C), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...op.get(r), ...op.i32(1), ...op.add, ...op.tee(r), ...op.get(R), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...op.end,
  ];
  return [...locals, ...code];
}

/** the module's bytes; `shared`: import a shared memory (tfjs's threaded build) */
function moduleBytes(shared: boolean): Uint8Array<ArrayBuffer> {
  const fn = (params: number) => [0x60, ...vec(new Array<number[]>(params).fill([I32])), 0];
  const body = (b: number[]) => [...uleb(b.length), ...b];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([fn(7), fn(4), fn(9)])),
    ...section(2, vec([memoryImport(shared)])),
    ...section(3, vec([[0], [1], [0], [2]])),
    ...section(7, vec([[...name('mm'), 0x00, 0], [...name('tr'), 0x00, 1], [...name('qk'), 0x00, 2], [...name('rest'), 0x00, 3]])),
    ...section(10, vec([body(mmBody()), body(trBody()), body(qkBody()), body(restBody())])),
  ]);
}

/** byte addresses on the heap and sizes */
type Product = (a: number, b: number, out: number, n: number, K: number, J: number, Jv: number) => void;
type Exports = {
  mm: Product;
  qk: Product;
  rest: (a: number, b: number, out: number, n: number, K: number, J: number, j0: number, sk: number, sj: number) => void;
  tr: (src: number, dst: number, R: number, C: number) => void;
};
const instances = new WeakMap<object, Exports | null>();

/** the kernel module on this backend's heap, or null where it cannot run (no SIMD: the plain matMul stays) */
function kernels(wasm: BackendWasm): Exports | null {
  const module = wasm.wasm as unknown as WasmModule;
  if (!instances.has(module)) instances.set(module, instantiateOnHeap<Exports>(module, moduleBytes));
  return instances.get(module)!;
}

function attentionMatMulKernel({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const wasm = backend as BackendWasm;
  const { a, b } = inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const transposeB = Boolean(attrs?.transposeB);
  const [N, n, K] = a.shape;
  const J = transposeB ? b.shape[1] : b.shape[2];
  const out = wasm.makeOutput([N, n, J], 'float32');
  const k = kernels(wasm)!;
  const module = wasm.wasm as unknown as WasmModule;
  const at = (t: tf.TensorInfo) => wasm.dataIdMap.get(t.dataId)!.memoryOffset;
  const [pa, pb, po] = [at(a), at(b), at(out)];
  // bᵀ: four keys' rows turned into columns in registers (qk) — for a decode step ~6× faster than
  // transposing each batch's keys into a scratch buffer first, and as fast for a prefill
  const viaShuffles = transposeB && K % 4 === 0;
  // bᵀ with K not a multiple of 4: each batch's bᵀ [K, J] transposed into a scratch buffer, reused
  const scratch = transposeB && !viaShuffles ? module._malloc(K * J * 4) : 0;
  const Jv = J - (J % 4); // columns in vectors; the rest (a cache whose capacity is not a multiple of 4) one by one
  try {
    for (let i = 0; i < N; i++) {
      const [ai, bi, oi] = [pa + i * n * K * 4, pb + i * K * J * 4, po + i * n * J * 4];
      if (viaShuffles) {
        if (Jv > 0) k.qk(ai, bi, oi, n, K, J, Jv);
        if (Jv < J) k.rest(ai, bi, oi, n, K, J, Jv, 1, K);
      } else {
        if (transposeB) k.tr(bi, scratch, J, K);
        const bk = transposeB ? scratch : bi; // [K, J]
        if (Jv > 0) k.mm(ai, bk, oi, n, K, J, Jv);
        if (Jv < J) k.rest(ai, bk, oi, n, K, J, Jv, J, 1);
      }
    }
  } finally {
    if (scratch) module._free(scratch);
  }
  return out;
}

let registered = false;
let enabled = true;
/** turns the kernel off (tf.matMul everywhere, as before it) or on again: for side-by-side measurement (bench/rollout.ts) */
export function setWasmAttentionKernel(on: boolean): void {
  enabled = on;
}

/** a [N, n, K] · b [N, K, J] (or bᵀ with b [N, J, K]) → [N, n, J] on wasm, as tf.matMul computes it; null
 *  where the kernel cannot run here (then the caller uses tf.matMul) */
export function wasmAttentionMatMul(a: tf.Tensor3D, b: tf.Tensor3D, transposeB: boolean): tf.Tensor3D | null {
  if (!enabled || tf.getBackend() !== 'wasm' || a.dtype !== 'float32' || b.dtype !== 'float32') return null;
  const J = transposeB ? b.shape[1] : b.shape[2];
  const K = a.shape[2];
  if (J === 0 || K === 0 || a.shape[1] === 0 || (transposeB ? b.shape[2] : b.shape[1]) !== K || b.shape[0] !== a.shape[0]) return null;
  if (!kernels(tf.backend() as BackendWasm)) return null;
  if (!registered) {
    if (!tf.getKernel(KERNEL, 'wasm')) tf.registerKernel({ kernelName: KERNEL, backendName: 'wasm', kernelFunc: attentionMatMulKernel as tf.KernelFunc });
    registered = true;
  }
  return tf.engine().runKernel(KERNEL, { a, b }, { transposeB }) as tf.Tensor3D;
}
