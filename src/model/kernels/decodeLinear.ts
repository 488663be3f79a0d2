// The decode step's linear layers in one WebGPU dispatch each (model/fusedDecode.ts). A decode step's
// matrices are small ([R ≤ 128 rows, C ≤ 256] · [C, ≤ 4C]): what costs is the host's work per dispatch
// (~150 µs a dispatch on the H200 through Dawn in Node, whatever the dispatch does), not the
// arithmetic. So one kernel does what the plain path spreads over up to five: an optional LayerNorm of
// the input rows, the product with W, the bias, an optional GELU and an optional residual:
//   y = [x + ] act( LN?(h)·W + b )     h [N, K], W [K, M] (or [M, K] transposed: the tied head), b [M]
// One thread per output element, each computing its row's LayerNorm statistics itself (K ≤ 256: cheaper
// than a dispatch). The operations are those of the plain path in the same order (LayerNorm as
// kernels/layerNorm.ts, GELU as kernels/biasGelu.ts), so only the matmul's summation order differs:
// within float rounding of the plain ops (test/node/nodeWebgpu.test.ts checks a decode step against wasm).
// Inference only: no gradient.
import * as tf from '@tensorflow/tfjs';
import { elementwiseProgram, registerWebGPUKernel, type WebGPUBackend } from './webgpu.ts';

const EPS = 1e-5; // kernels/layerNorm.ts's
const GELU_2K = 2 * Math.sqrt(2 / Math.PI);

export interface DecodeLinearOptions {
  /** LayerNorm the input rows first, with this gain and bias [K] */
  ln?: { g: tf.Tensor; b: tf.Tensor };
  /** W is [M, K] (y = h·Wᵀ): the head tied to the token embedding */
  transposeW?: boolean;
  /** bias [M] */
  bias?: tf.Tensor;
  gelu?: boolean;
  /** added last, [N, M]: the residual stream */
  residual?: tf.Tensor;
}

interface Attrs { ln: boolean; transposeW: boolean; bias: boolean; gelu: boolean; residual: boolean;
  /** S seeds in one program (model/seedStack.ts): W [S·K, M] (or [S·M, K]), G/Beta [S·K], Bias [S·M], and
   *  row r of X's N rows is seed r / (N / S)'s (N a uniform: one shader for every batch); absent for one seed
   *  (Policy: the shader exactly as before) */
  seeds?: { S: number } }

function body(a: Attrs): string {
  // one seed: offsets 0 (the strings below are then the single-seed shader's, character for character)
  const sd = a.seeds ? (of: string) => `sd * ${of} + ` : () => '';
  const x = a.ln ? `((X[base + k] - mean) * rstd * G[${sd('K')}k] + Beta[${sd('K')}k])` : 'X[base + k]';
  const w = a.transposeW
    ? `W[${a.seeds ? '(sd * M + j)' : 'j'} * K + k]`
    : `W[${a.seeds ? '(sd * K + k)' : 'k'} * M + j]`;
  const M = a.transposeW ? `uniforms.wShape.x${a.seeds ? ` / ${a.seeds.S}` : ''}` : 'uniforms.wShape.y';
  return `
    let K = uniforms.xShape.y;
    let M = ${M};
    let r = index / M;
    let j = index % M;
    let base = r * K;${a.seeds ? `
    let sd = r / (uniforms.xShape.x / ${a.seeds.S});` : ''}
    ${a.ln ? `var s = 0.0;
    for (var c = 0; c < K; c = c + 1) { s = s + X[base + c]; }
    let mean = s / f32(K);
    var q = 0.0;
    for (var c = 0; c < K; c = c + 1) { let d = X[base + c] - mean; q = q + d * d; }
    let rstd = inverseSqrt(q / f32(K) + ${EPS});` : ''}
    var acc = 0.0;
    for (var k = 0; k < K; k = k + 1) { acc = acc + ${x} * ${w}; }
    ${a.bias ? `acc = acc + Bias[${sd('M')}j];` : ''}
    ${a.gelu ? `let t = (acc + ((acc * acc) * acc) * 0.044715) * ${GELU_2K};
    acc = acc * (1.0 / (1.0 + exp(-1.0 * t)));` : ''}
    ${a.residual ? 'acc = Res[index] + acc;' : ''}
    result[index] = acc;`;
}

registerWebGPUKernel('StarDecodeLinear', ({ inputs, backend, attrs }) => {
  const a = attrs as unknown as Attrs;
  const { x, w, g, beta, bias, res } = inputs as Record<string, tf.TensorInfo>;
  const N = x.shape[0];
  const M = a.transposeW ? w.shape[0] / (a.seeds?.S ?? 1) : w.shape[1];
  // only the inputs the variant reads (WebGPU drops unused bindings, and tfjs's bind group would not fit)
  const names = ['X', 'W', ...(a.ln ? ['G', 'Beta'] : []), ...(a.bias ? ['Bias'] : []), ...(a.residual ? ['Res'] : [])];
  const ins = [x, w, ...(a.ln ? [g, beta] : []), ...(a.bias ? [bias] : []), ...(a.residual ? [res] : [])];
  const key = `star_decode_linear_${+a.ln}${+a.transposeW}${+a.bias}${+a.gelu}${+a.residual}${a.seeds ? `_seeds${a.seeds.S}` : ''}`;
  const out = (backend as unknown as WebGPUBackend).runWebGPUProgram(
    elementwiseProgram(key, names, N * M, [], body(a)),
    ins,
    'float32',
  );
  return { ...out, shape: [N, M] };
});

/** h [N, K] → [N, M] in one dispatch (webgpu only: the caller checks useFusedDecode) */
export function decodeLinear(h: tf.Tensor2D, w: tf.Tensor, o: DecodeLinearOptions = {}): tf.Tensor2D {
  const [N, K] = h.shape;
  const M = o.transposeW ? w.shape[0] : w.shape[1];
  if ((o.transposeW ? w.shape[1] : w.shape[0]) !== K)
    throw new Error(`decodeLinear: W [${w.shape}] does not take rows of ${K}`);
  if (o.residual && (o.residual.shape[0] !== N || o.residual.shape[1] !== M))
    throw new Error(`decodeLinear: residual [${o.residual.shape}] is not [${N}, ${M}]`);
  const inputs: tf.NamedTensorMap = { x: h, w };
  if (o.ln) { inputs.g = o.ln.g; inputs.beta = o.ln.b; }
  if (o.bias) inputs.bias = o.bias;
  if (o.residual) inputs.res = o.residual;
  const attrs: Attrs = {
    ln: !!o.ln,
    transposeW: !!o.transposeW,
    bias: !!o.bias,
    gelu: !!o.gelu,
    residual: !!o.residual,
  };
  return tf.engine().runKernel('StarDecodeLinear', inputs, attrs as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}

/** decodeLinear for S seeds in one program (model/seedStack.ts): h [S·R, K] (seed s's rows at s·R…), W
 *  [S, K, M] (or [S, M, K] with transposeW), LayerNorm gain/bias [S, K], bias [S, M], residual [S·R, M] →
 *  [S·R, M], each row through its own seed's weights, in one dispatch (webgpu only) */
export function decodeLinearSeeds(h: tf.Tensor2D, w: tf.Tensor, o: DecodeLinearOptions = {}): tf.Tensor2D {
  const [N, K] = h.shape;
  const [S, rows, cols] = w.shape;
  if (w.rank !== 3 || N % S !== 0) throw new Error(`decodeLinearSeeds: W [${w.shape}] is not [S, ·, ·] for ${N} rows`);
  const M = o.transposeW ? rows : cols;
  if ((o.transposeW ? cols : rows) !== K)
    throw new Error(`decodeLinearSeeds: W [${w.shape}] does not take rows of ${K}`);
  if (o.residual && (o.residual.shape[0] !== N || o.residual.shape[1] !== M))
    throw new Error(`decodeLinearSeeds: residual [${o.residual.shape}] is not [${N}, ${M}]`);
  const inputs: tf.NamedTensorMap = { x: h, w: w.reshape([S * rows, cols]) };
  if (o.ln) { inputs.g = o.ln.g.reshape([S * K]); inputs.beta = o.ln.b.reshape([S * K]); }
  if (o.bias) inputs.bias = o.bias.reshape([S * M]);
  if (o.residual) inputs.res = o.residual;
  const attrs: Attrs = {
    ln: !!o.ln,
    transposeW: !!o.transposeW,
    bias: !!o.bias,
    gelu: !!o.gelu,
    residual: !!o.residual,
    seeds: { S },
  };
  return tf.engine().runKernel('StarDecodeLinear', inputs, attrs as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}
