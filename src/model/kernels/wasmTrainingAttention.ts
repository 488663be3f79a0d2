// The training attention (ops.ts causalAttention) on tfjs `wasm` as two fused WebAssembly SIMD kernels, one
// call per head instead of ~15 tfjs ops a head forward and ~12 backward, each over a [T, T] tensor. At the
// RL update's shapes (T ≈ 300–450, hd 16) those ops are memory-bound and the products XNNPACK's small-K
// case; here a head's row works in L1: scores, its softmax and p·v in one pass (forward), dP, dS, dq and
// the dk, dv accumulations in one pass (backward). Keys j > i are skipped, not computed and masked: the
// causal mask's exp is exactly 0 in the plain ops too, so only half of the work is left.
//   forward  row i: s = (q_i·scale)·kᵀ + bias_i, p = softmax(s) over j ≤ i, y_i = Σ_j p_j v_j; P kept
//   backward row i: dP = dy_i·vᵀ, dS = (dP − Σ dP⊙p)⊙p, dq_i = scale·Σ_j dS_j k_j, dk_j += dS_j·q_i·scale, dv_j += p_j·dy_i
// Sums over hd (q·kᵀ, dy·vᵀ) and over j (p·v, dS·k) and the dk, dv accumulations over i run in the plain
// path's order (XNNPACK's: sequential from 0, multiply then add); the softmax's exp is a polynomial
// (Cephes expf, ~1 ulp) and its max and sums use four lanes, so values differ from the plain ops by float
// rounding (test/model/wasmTrainingAttention.test.ts). The module is emitted per head size and scale,
// imports tfjs's heap, and needs T a multiple of 4 (the caller pads) and hd a multiple of 4.
import * as tf from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { I32, V128, instantiateOnHeap, memoryImport, name, op, section, uleb, vec, type WasmModule } from './wasmEmit.ts';

const FORWARD = 'StarCausalAttention';
const BACKWARD = 'StarCausalAttentionGrad';
const LOW = -3.4e38; // a masked lane's score: below every real one

/** a function's locals by name: params first (i32), then declared ones in groups of one type */
class Locals {
  private types: number[] = [];
  constructor(private params: number) {}
  add(type: number, count = 1): number[] {
    const first = this.params + this.types.length;
    for (let i = 0; i < count; i++) this.types.push(type);
    return Array.from({ length: count }, (_, i) => first + i);
  }
  one(type: number): number {
    return this.add(type)[0];
  }
  /** the locals' declaration bytes */
  declare(): number[] {
    const runs: number[][] = [];
    for (const t of this.types) {
      const last = runs[runs.length - 1];
      if (last && last[1] === t) last[0]++;
      else runs.push([1, t]);
    }
    return vec(runs.map(([n, t]) => [...uleb(n), t]));
  }
}

const f32x4 = (x: number) => [0xfd, 0x0c, ...Array.from(new Uint8Array(new Float32Array([x, x, x, x]).buffer))];
const i32x4 = (x: number) => [0xfd, 0x0c, ...Array.from(new Uint8Array(new Int32Array([x, x, x, x]).buffer))];
/** do { body } while ((ctr += step) < limit) */
const doWhile = (ctr: number, step: number[], limit: number[], body: number[][]) => [
  ...op.loop, ...body.flat(), ...op.get(ctr), ...step, ...op.add, ...op.tee(ctr), ...limit, ...op.ltU, ...op.brIf(0), ...op.end,
];
/** local = local + step (i32) */
const bump = (local: number, step: number[]) => [...op.get(local), ...step, ...op.add, ...op.set(local)];

/** exp(x) of the v128 local x, on the stack (Cephes expf: x = n·ln2 + r, 2ⁿ·poly(r)); exactly 0 below −87.3 */
function expCode(x: number, r: number, n: number): number[] {
  const poly = [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1];
  return [
    ...op.get(x), ...f32x4(-87.3), ...op.f32x4Max, ...op.set(r),
    ...op.get(r), ...f32x4(Math.LOG2E), ...op.f32x4Mul, ...op.f32x4Nearest, ...op.set(n),
    ...op.get(r), ...op.get(n), ...f32x4(0.693359375), ...op.f32x4Mul, ...op.f32x4Sub,
    ...op.get(n), ...f32x4(-2.12194440e-4), ...op.f32x4Mul, ...op.f32x4Sub, ...op.set(r),
    ...op.get(r), ...f32x4(poly[0]), ...op.f32x4Mul,
    ...poly.slice(1).flatMap((c, i) => [...f32x4(c), ...op.f32x4Add, ...(i < poly.length - 2 ? [...op.get(r), ...op.f32x4Mul] : [])]),
    ...op.get(r), ...op.get(r), ...op.f32x4Mul, ...op.f32x4Mul, ...op.get(r), ...op.f32x4Add, ...f32x4(1), ...op.f32x4Add,
    ...op.get(n), ...op.i32x4TruncSatF32x4S, ...i32x4(127), ...op.i32x4Add, ...op.i32(23), ...op.i32x4Shl, ...op.f32x4Mul,
    ...op.get(x), ...f32x4(-87.3), ...op.f32x4Ge, ...op.v128And,
  ];
}

/** the four lanes of v128 local `v` folded by `fold` (f32.add or f32.max), as an f32 on the stack */
const lanes = (v: number, fold: number[]) => [
  ...op.get(v), ...op.f32x4Lane(0), ...op.get(v), ...op.f32x4Lane(1), ...fold, ...op.get(v), ...op.f32x4Lane(2), ...fold, ...op.get(v), ...op.f32x4Lane(3), ...fold,
];

/** keys (or values) x [Tp, hd] → blocked xB: 4 rows' columns side by side, xB[(t/4)·hd·4 + d·4 + t%4] = x[t, d],
 *  so a 4-key chunk's column d is one vector at xB + chunk·hd·16 + 16·d */
function blockCode(src: number, dst: number, Tp: number, L: Locals, hd: number): number[] {
  const [t, ps, pd] = L.add(I32, 3);
  return [
    ...op.i32(0), ...op.set(t), ...op.get(src), ...op.set(ps),
    ...doWhile(t, op.i32(1), op.get(Tp), [
      // pd = dst + ((t >> 2)·hd·4 + (t & 3))·4
      op.get(dst), op.get(t), op.i32(2), [0x76], op.i32(hd * 16), op.mul, op.add, op.get(t), op.i32(3), op.and, op.i32(4), op.mul, op.add, op.set(pd),
      ...Array.from({ length: hd }, (_, d) => [...op.get(pd), ...op.get(ps), ...op.f32LoadAt(4 * d), 0x38, 0x02, ...uleb(16 * d)]),
      bump(ps, op.i32(hd * 4)),
    ]),
  ];
}

/** fwd(q, k, v, bias, P, y, kB, Tp): one head; q, k, v, y [Tp, hd], bias and P [Tp, Tp], kB scratch [Tp, hd] */
function forwardBody(hd: number, scale: number): number[] {
  const [q, k, v, bias, P, y, kB, Tp] = [0, 1, 2, 3, 4, 5, 6, 7];
  const L = new Locals(8);
  const [i, jb, J4b, rowB, prow, brow, qrow, pk, pp, pv, pEnd] = L.add(I32, 11);
  const qs = L.add(V128, hd);
  const ys = L.add(V128, hd / 4);
  const [acc, mv, sv, x, r, n] = L.add(V128, 6);
  const chunks = (body: number[][]) => [...op.i32(0), ...op.set(jb), ...doWhile(jb, op.i32(16), op.get(J4b), body)];
  const code = [
    ...blockCode(k, kB, Tp, L, hd),
    ...op.get(Tp), ...op.i32(4), ...op.mul, ...op.set(rowB),
    ...op.i32(0), ...op.set(i), ...op.get(q), ...op.set(qrow), ...op.get(P), ...op.set(prow), ...op.get(bias), ...op.set(brow),
    ...doWhile(i, op.i32(1), op.get(Tp), [
      ...qs.map((l, d) => [...op.get(qrow), ...op.f32LoadAt(4 * d), ...op.f32(scale), ...op.f32Mul, ...op.f32x4Splat, ...op.set(l)]),
      // J4b = the row's chunks in bytes: ((i & ~3) + 4)·4
      op.get(i), op.i32(-4), op.and, op.i32(4), op.add, op.i32(4), op.mul, op.set(J4b),
      // scores of keys 0 .. J4 − 1 (in the plain path's order: Σ_d from 0, then + bias)
      chunks([
        op.v128Zero, op.set(acc),
        op.get(kB), op.get(jb), op.i32(hd), op.mul, op.add, op.set(pk),
        ...qs.map((l, d) => [...op.get(acc), ...op.get(l), ...op.get(pk), ...op.v128LoadAt(16 * d), ...op.f32x4Mul, ...op.f32x4Add, ...op.set(acc)]),
        op.get(prow), op.get(jb), op.add,
        op.get(acc), op.get(brow), op.get(jb), op.add, op.v128Load, op.f32x4Add, op.v128Store,
      ]),
      // keys i+1 .. J4−1 are masked: a score below every real one, then exp → exactly 0
      op.get(prow), op.get(i), op.i32(4), op.mul, op.add, op.i32(4), op.add, op.set(pp), op.get(prow), op.get(J4b), op.add, op.set(pEnd),
      [...op.loop, ...op.get(pp), ...op.get(pEnd), ...op.ltU, 0x04, 0x40, // while (pp < pEnd) { *pp = LOW; pp += 4 }
        ...op.get(pp), ...op.f32(LOW), ...op.f32Store, ...bump(pp, op.i32(4)), 0x0c, 1, ...op.end, ...op.end],
      f32x4(LOW), op.set(mv),
      chunks([op.get(mv), op.get(prow), op.get(jb), op.add, op.v128Load, op.f32x4Max, op.set(mv)]),
      lanes(mv, op.f32Max), op.f32x4Splat, op.set(mv),
      op.v128Zero, op.set(sv),
      chunks([
        op.get(prow), op.get(jb), op.add, op.v128Load, op.get(mv), op.f32x4Sub, op.set(x),
        op.get(prow), op.get(jb), op.add, expCode(x, r, n), op.tee(acc), op.v128Store,
        op.get(sv), op.get(acc), op.f32x4Add, op.set(sv),
      ]),
      lanes(sv, op.f32Add), op.f32x4Splat, op.set(sv),
      chunks([op.get(prow), op.get(jb), op.add, op.get(prow), op.get(jb), op.add, op.v128Load, op.get(sv), op.f32x4Div, op.v128Store]),
      // y_i = Σ_{j ≤ i} p_j v_j, j in order
      ...ys.map((l) => [...op.v128Zero, ...op.set(l)]),
      op.get(prow), op.set(pp), op.get(v), op.set(pv),
      op.get(prow), op.get(i), op.i32(4), op.mul, op.add, op.i32(4), op.add, op.set(pEnd),
      doWhile(pp, op.i32(4), op.get(pEnd), [
        op.get(pp), op.f32Load, op.f32x4Splat, op.set(acc),
        ...ys.map((l, c) => [...op.get(l), ...op.get(acc), ...op.get(pv), ...op.v128LoadAt(16 * c), ...op.f32x4Mul, ...op.f32x4Add, ...op.set(l)]),
        bump(pv, op.i32(hd * 4)),
      ]),
      ...ys.map((l, c) => [...op.get(y), ...op.get(l), ...op.v128StoreAt(16 * c)]),
      bump(y, op.i32(hd * 4)), bump(qrow, op.i32(hd * 4)), bump(prow, op.get(rowB)), bump(brow, op.get(rowB)),
    ]),
    ...op.end,
  ];
  return [...L.declare(), ...code];
}

/** bwd(q, k, v, dy, P, dq, dk, dv, vB, row, Tp): one head; dk, dv zeroed by the caller; row scratch [Tp] */
function backwardBody(hd: number, scale: number): number[] {
  const [q, k, v, dy, P, dq, dk, dv, vB, row, Tp] = Array.from({ length: 11 }, (_, i) => i);
  const L = new Locals(11);
  const [i, jb, J4b, rowB, prow, pv, pp, pr, o, pEnd] = L.add(I32, 10);
  const dyd = L.add(V128, hd); // dy_i[d] splatted
  const dyv = L.add(V128, hd / 4); // dy_i's vectors
  const qs = L.add(V128, hd / 4); // q_i·scale's vectors
  const dqs = L.add(V128, hd / 4);
  const [acc, cv, sdS, sP] = L.add(V128, 4);
  const chunks = (body: number[][]) => [...op.i32(0), ...op.set(jb), ...doWhile(jb, op.i32(16), op.get(J4b), body)];
  const code = [
    ...blockCode(v, vB, Tp, L, hd),
    ...op.get(Tp), ...op.i32(4), ...op.mul, ...op.set(rowB),
    ...op.i32(0), ...op.set(i), ...op.get(P), ...op.set(prow),
    ...doWhile(i, op.i32(1), op.get(Tp), [
      ...dyd.map((l, d) => [...op.get(dy), ...op.f32LoadAt(4 * d), ...op.f32x4Splat, ...op.set(l)]),
      ...dyv.map((l, c) => [...op.get(dy), ...op.v128LoadAt(16 * c), ...op.set(l)]),
      ...qs.map((l, c) => [...op.get(q), ...op.v128LoadAt(16 * c), ...f32x4(scale), ...op.f32x4Mul, ...op.set(l)]),
      op.get(i), op.i32(-4), op.and, op.i32(4), op.add, op.i32(4), op.mul, op.set(J4b),
      // dP = dy_i·vᵀ into row (Σ_d from 0), and c = Σ dP·p (p is 0 past i)
      op.v128Zero, op.set(cv),
      chunks([
        op.v128Zero, op.set(acc),
        op.get(vB), op.get(jb), op.i32(hd), op.mul, op.add, op.set(pv),
        ...dyd.map((l, d) => [...op.get(acc), ...op.get(l), ...op.get(pv), ...op.v128LoadAt(16 * d), ...op.f32x4Mul, ...op.f32x4Add, ...op.set(acc)]),
        op.get(row), op.get(jb), op.add, op.get(acc), op.v128Store,
        op.get(cv), op.get(acc), op.get(prow), op.get(jb), op.add, op.v128Load, op.f32x4Mul, op.f32x4Add, op.set(cv),
      ]),
      lanes(cv, op.f32Add), op.f32x4Splat, op.set(cv),
      // dS = (dP − c)·p
      chunks([op.get(row), op.get(jb), op.add, op.get(row), op.get(jb), op.add, op.v128Load, op.get(cv), op.f32x4Sub,
        op.get(prow), op.get(jb), op.add, op.v128Load, op.f32x4Mul, op.v128Store]),
      // keys j ≤ i in order: dq_i += dS_j·k_j; dk_j += dS_j·q_i·scale; dv_j += p_j·dy_i
      ...dqs.map((l) => [...op.v128Zero, ...op.set(l)]),
      op.get(row), op.set(pr), op.get(prow), op.set(pp), op.i32(0), op.set(o),
      op.get(prow), op.get(i), op.i32(4), op.mul, op.add, op.i32(4), op.add, op.set(pEnd),
      doWhile(pp, op.i32(4), op.get(pEnd), [
        op.get(pr), op.f32Load, op.f32x4Splat, op.set(sdS), op.get(pp), op.f32Load, op.f32x4Splat, op.set(sP),
        ...dqs.map((l, c) => [...op.get(l), ...op.get(sdS), ...op.get(k), ...op.get(o), ...op.add, ...op.v128LoadAt(16 * c), ...op.f32x4Mul, ...op.f32x4Add, ...op.set(l)]),
        ...qs.map((l, c) => [...op.get(dk), ...op.get(o), ...op.add, ...op.get(dk), ...op.get(o), ...op.add, ...op.v128LoadAt(16 * c),
          ...op.get(sdS), ...op.get(l), ...op.f32x4Mul, ...op.f32x4Add, ...op.v128StoreAt(16 * c)]),
        ...dyv.map((l, c) => [...op.get(dv), ...op.get(o), ...op.add, ...op.get(dv), ...op.get(o), ...op.add, ...op.v128LoadAt(16 * c),
          ...op.get(sP), ...op.get(l), ...op.f32x4Mul, ...op.f32x4Add, ...op.v128StoreAt(16 * c)]),
        bump(pr, op.i32(4)), bump(o, op.i32(hd * 4)),
      ]),
      ...dqs.map((l, c) => [...op.get(dq), ...op.get(l), ...f32x4(scale), ...op.f32x4Mul, ...op.v128StoreAt(16 * c)]),
      bump(q, op.i32(hd * 4)), bump(dy, op.i32(hd * 4)), bump(dq, op.i32(hd * 4)), bump(prow, op.get(rowB)),
    ]),
    ...op.end,
  ];
  return [...L.declare(), ...code];
}

function moduleBytes(hd: number, scale: number, shared: boolean): Uint8Array<ArrayBuffer> {
  const fn = (params: number) => [0x60, ...vec(new Array<number[]>(params).fill([I32])), 0];
  const body = (b: number[]) => [...uleb(b.length), ...b];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([fn(8), fn(11)])),
    ...section(2, vec([memoryImport(shared)])),
    ...section(3, vec([[0], [1]])),
    ...section(7, vec([[...name('fwd'), 0x00, 0], [...name('bwd'), 0x00, 1]])),
    ...section(10, vec([body(forwardBody(hd, scale)), body(backwardBody(hd, scale))])),
  ]);
}

type Exports = {
  fwd: (q: number, k: number, v: number, bias: number, P: number, y: number, kB: number, Tp: number) => void;
  bwd: (q: number, k: number, v: number, dy: number, P: number, dq: number, dk: number, dv: number, vB: number, row: number, Tp: number) => void;
};
const instances = new WeakMap<object, Map<string, Exports | null>>();

function kernels(wasm: BackendWasm, hd: number, scale: number): Exports | null {
  const module = wasm.wasm as unknown as WasmModule;
  let byShape = instances.get(module);
  if (!byShape) instances.set(module, (byShape = new Map()));
  const key = `${hd}:${Math.fround(scale)}`;
  if (!byShape.has(key)) byShape.set(key, instantiateOnHeap<Exports>(module, (shared) => moduleBytes(hd, Math.fround(scale), shared)));
  return byShape.get(key)!;
}

type KernelArgs = { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap };
const address = (wasm: BackendWasm, t: tf.TensorInfo) => wasm.dataIdMap.get(t.dataId)!.memoryOffset;

/** x [B, 3H, Tp, hd] (per row: H q heads, H k heads, H v heads), biases b0.. [Tp, Tp] (one, or one per head)
 *  → y [B, H, Tp, hd], P [B·H, Tp, Tp] (the probabilities, for the backward; zero at j > i in each 4-key chunk) */
function forwardKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo[] {
  const wasm = backend as BackendWasm;
  const x = inputs.x as tf.TensorInfo;
  const [B, threeH, Tp, hd] = x.shape;
  const H = threeH / 3;
  const scale = attrs!.scale as number;
  const biases = Object.keys(inputs).filter((k) => k !== 'x').sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))).map((k) => inputs[k] as tf.TensorInfo);
  const y = wasm.makeOutput([B, H, Tp, hd], 'float32');
  const P = wasm.makeOutput([B * H, Tp, Tp], 'float32');
  const k = kernels(wasm, hd, scale)!;
  const module = wasm.wasm as unknown as WasmModule;
  const kB = module._malloc(Tp * hd * 4);
  try {
    const [px, py, pP] = [address(wasm, x), address(wasm, y), address(wasm, P)];
    const head = Tp * hd * 4;
    for (let j = 0; j < B * H; j++) {
      const [b, h] = [Math.floor(j / H), j % H];
      const q = px + (b * threeH + h) * head;
      k.fwd(q, q + H * head, q + 2 * H * head, address(wasm, biases[biases.length === 1 ? 0 : h]), pP + j * Tp * Tp * 4, py + j * head, kB, Tp);
    }
  } finally {
    module._free(kB);
  }
  return [y, P];
}

/** x [B, 3H, Tp, hd], P [B·H, Tp, Tp], dy [B, H, Tp, hd] → dx [B, 3H, Tp, hd] */
function backwardKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const wasm = backend as BackendWasm;
  const { x, p, dy } = inputs as { x: tf.TensorInfo; p: tf.TensorInfo; dy: tf.TensorInfo };
  const [B, threeH, Tp, hd] = x.shape;
  const H = threeH / 3;
  const dx = wasm.makeOutput(x.shape, 'float32');
  const k = kernels(wasm, hd, attrs!.scale as number)!;
  const module = wasm.wasm as unknown as WasmModule;
  const scratch = module._malloc((Tp * hd + Tp) * 4);
  try {
    const [px, pP, pdy, pdx] = [address(wasm, x), address(wasm, p), address(wasm, dy), address(wasm, dx)];
    new Float32Array(module.HEAPU8.buffer, pdx, B * threeH * Tp * hd).fill(0); // dk, dv accumulate
    const head = Tp * hd * 4;
    for (let j = 0; j < B * H; j++) {
      const [b, h] = [Math.floor(j / H), j % H];
      const off = (b * threeH + h) * head; // this head's q (and dq); k, v at + H, + 2H heads
      k.bwd(px + off, px + off + H * head, px + off + 2 * H * head, pdy + j * head, pP + j * Tp * Tp * 4,
        pdx + off, pdx + off + H * head, pdx + off + 2 * H * head, scratch, scratch + Tp * hd * 4, Tp);
    }
  } finally {
    module._free(scratch);
  }
  return dx;
}

let registered = false;
function register(): void {
  if (registered) return;
  if (!tf.getKernel(FORWARD, 'wasm')) tf.registerKernel({ kernelName: FORWARD, backendName: 'wasm', kernelFunc: forwardKernel as unknown as tf.KernelFunc });
  if (!tf.getKernel(BACKWARD, 'wasm')) tf.registerKernel({ kernelName: BACKWARD, backendName: 'wasm', kernelFunc: backwardKernel as tf.KernelFunc });
  registered = true;
}

/** whether the kernels run here for head size hd (wasm with SIMD, hd a multiple of 4) */
export function trainingAttentionAvailable(hd: number, scale: number): boolean {
  return tf.getBackend() === 'wasm' && hd % 4 === 0 && hd > 0 && kernels(tf.backend() as BackendWasm, hd, scale) !== null;
}

const causalChecked = new WeakMap<object, boolean>();
/** whether bias [T, T] masks every key after its query (≤ −1e6 above the diagonal: the plain softmax's exp
 *  is exactly 0 there, so skipping those keys changes nothing); read on the heap once per tensor */
export function isCausalBias(bias: tf.Tensor2D): boolean {
  const known = causalChecked.get(bias.dataId);
  if (known !== undefined) return known;
  const wasm = tf.backend() as BackendWasm;
  const T = bias.shape[0];
  const heap = new Float32Array((wasm.wasm as unknown as WasmModule).HEAPU8.buffer, address(wasm, bias), T * T);
  let causal = bias.dtype === 'float32' && bias.shape[1] === T;
  for (let i = 0; causal && i < T; i++) for (let j = i + 1; j < T; j++) if (!(heap[i * T + j] <= -1e6)) { causal = false; break; }
  causalChecked.set(bias.dataId, causal);
  return causal;
}

/** forward: heads [B, 3H, Tp, hd], biases [Tp, Tp] → [y [B, H, Tp, hd], P [B·H, Tp, Tp]] */
export function trainingAttentionForward(heads: tf.Tensor4D, biases: readonly tf.Tensor2D[], scale: number): [tf.Tensor4D, tf.Tensor3D] {
  register();
  const inputs: tf.NamedTensorMap = { x: heads };
  biases.forEach((b, h) => { inputs[`b${h}`] = b; });
  return tf.engine().runKernel(FORWARD, inputs, { scale }) as unknown as [tf.Tensor4D, tf.Tensor3D];
}

/** backward: heads [B, 3H, Tp, hd], P from the forward, dy [B, H, Tp, hd] → dheads [B, 3H, Tp, hd] */
export function trainingAttentionBackward(heads: tf.Tensor, p: tf.Tensor, dy: tf.Tensor, scale: number): tf.Tensor4D {
  register();
  return tf.engine().runKernel(BACKWARD, { x: heads, p, dy }, { scale }) as tf.Tensor4D;
}
