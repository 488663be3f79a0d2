// A tiny WebAssembly emitter, just what the hand-written SIMD kernels need (wasmAttentionMatMul.ts,
// wasmTrainingAttention.ts): LEB128 numbers, sections, and the opcodes they use as byte arrays. No
// toolchain: a kernel's module is built in-process from these bytes and imports tfjs's own heap.

export const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
};
export const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(byte & 0x40)) || (n === -1 && byte & 0x40)) return [...out, byte];
    out.push(byte | 0x80);
  }
};
export const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
export const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
export const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;
const simd = (code: number) => [0xfd, ...uleb(code)];
/** f32 constant's bytes (little-endian IEEE) */
const f32Bytes = (x: number) => Array.from(new Uint8Array(new Float32Array([x]).buffer));
export const op = {
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (n: number) => [0x41, ...sleb(n)],
  add: [0x6a],
  sub: [0x6b],
  mul: [0x6c],
  and: [0x71],
  ltU: [0x49],
  leU: [0x4d],
  eqz: [0x45],
  loop: [0x03, 0x40],
  end: [0x0b],
  brIf: (d: number) => [0x0d, ...uleb(d)],
  ifV128: [0x04, V128],
  ifF32: [0x04, F32],
  else: [0x05],
  f32Zero: [0x43, 0, 0, 0, 0],
  f32: (x: number) => [0x43, ...f32Bytes(x)],
  f32Add: [0x92],
  f32Mul: [0x94],
  f32Max: [0x97],
  f32Load: [0x2a, 0x02, 0x00],
  f32Store: [0x38, 0x02, 0x00],
  /** f32.load / v128.load / v128.store with a constant byte offset */
  f32LoadAt: (offset: number) => [0x2a, 0x02, ...uleb(offset)],
  v128LoadAt: (offset: number) => [0xfd, 0x00, 0x04, ...uleb(offset)],
  v128StoreAt: (offset: number) => [0xfd, 0x0b, 0x04, ...uleb(offset)],
  v128Load: [0xfd, 0x00, 0x02, 0x00],
  v128Store: [0xfd, 0x0b, 0x02, 0x00],
  v128Zero: [0xfd, 0x0c, ...new Array<number>(16).fill(0)],
  v128And: simd(0x4e),
  f32x4Splat: simd(0x13),
  f32x4Add: simd(0xe4),
  f32x4Sub: simd(0xe5),
  f32x4Mul: simd(0xe6),
  f32x4Div: simd(0xe7),
  f32x4Max: simd(0xe9),
  f32x4Ge: simd(0x46),
  f32x4Nearest: simd(0x6a),
  f32x4Lane: (lane: number) => [...simd(0x1f), lane],
  i32x4Add: simd(0xae),
  i32x4Shl: simd(0xab),
  i32x4TruncSatF32x4S: simd(0xf8),
  i32x4Splat: simd(0x11),
  /** i8x16.shuffle picking f32 lanes (0–3 of the first operand, 4–7 of the second) */
  shuffle: (lanes: number[]) => [0xfd, 0x0d, ...lanes.flatMap((l) => [4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3])],
};

/** the emscripten module of tfjs-wasm, as far as the kernels use it */
export type WasmModule = { asm?: { memory?: WebAssembly.Memory }; wasmMemory?: WebAssembly.Memory; HEAPU8: Uint8Array;
  _malloc: (bytes: number) => number; _free: (ptr: number) => void };

/** an instance of `bytes(shared)` importing the module's heap as env.memory, or null where it cannot run
 *  (no SIMD, a heap it cannot import) */
export function instantiateOnHeap<E>(
  module: WasmModule,
  bytes: (shared: boolean) => Uint8Array<ArrayBuffer>,
): E | null {
  try {
    const memory = module.wasmMemory ?? module.asm?.memory; // the threaded build imports its (shared) memory
    if (!(memory instanceof WebAssembly.Memory)) return null;
    const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
    return new WebAssembly.Instance(new WebAssembly.Module(bytes(shared)), { env: { memory } }).exports as unknown as E;
  } catch {
    return null;
  }
}

/** the memory import's bytes: shared (tfjs's threaded build) or not */
export const memoryImport = (shared: boolean) => [
  ...name('env'),
  ...name('memory'),
  0x02,
  ...(shared ? [0x03, ...uleb(0), ...uleb(65536)] : [0x00, ...uleb(0)]),
];
