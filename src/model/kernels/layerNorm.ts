// LayerNorm over the last axis, y = (x − mean)·rsqrt(var + ε)·g + b. The plain tfjs form is ~10
// dispatches forward (moments, sub, rsqrt, mul, …) and ~20 for its autodiff backward, 9 times per
// step in preset s. On webgpu it is one fused kernel forward (StarLayerNorm, a thread per row:
// decoding pays one dispatch per LayerNorm) and four backward (StarLayerNormStats: each row's mean
// and rstd; StarLayerNormDx: dx; StarLayerNormDgDb: dg and db summed over the rows). Elsewhere the
// plain ops, unchanged (cpu/wasm results stay bit for bit), which are the reference in the checks.
import * as tf from '@tensorflow/tfjs';
import { registerWebGPUKernel, useFusedKernels, type WebGPUBackend, type WebGPUProgram } from './webgpu.ts';

const EPS = 1e-5;
const WORKGROUP = 64;

/** the row's mean and rstd from X [N, C] (uniforms.xShape = (N, C)) */
const ROW_STATS = `
  let C = uniforms.xShape.y;
  let base = row * C;
  var s = 0.0;
  for (var c = 0; c < C; c = c + 1) { s = s + X[base + c]; }
  let mean = s / f32(C);
  var q = 0.0;
  for (var c = 0; c < C; c = c + 1) { let d = X[base + c] - mean; q = q + d * d; }
  let rstd = inverseSqrt(q / f32(C) + uniforms.eps);`;

/** a program with one thread per unit of work (`threads`: rows, or 2·C for dg/db) */
function program(key: string, inputs: string[], outputShape: number[], threads: number, body: string): WebGPUProgram {
  return {
    variableNames: inputs,
    outputShape,
    shaderKey: key,
    dispatchLayout: { x: [0] },
    dispatch: [Math.ceil(threads / WORKGROUP), 1, 1],
    workgroupSize: [WORKGROUP, 1, 1],
    uniforms: 'eps : f32, threads : i32,',
    getUserCode: () => `
      fn main(row : i32) {
        if (row >= uniforms.threads) { return; }
        ${body}
      }`,
  };
}

function run(backend: unknown, p: WebGPUProgram, inputs: tf.TensorInfo[], threads: number): tf.TensorInfo {
  return (backend as WebGPUBackend).runWebGPUProgram(p, inputs, 'float32', [
    { type: 'float32', data: [EPS] },
    { type: 'int32', data: [threads] },
  ]);
}

registerWebGPUKernel('StarLayerNorm', ({ inputs, backend }) => {
  const { x, g, b } = inputs as Record<string, tf.TensorInfo>; // x [N, C], g, b [C]
  const N = x.shape[0];
  return run(
    backend,
    program(
      'star_ln',
      ['X', 'G', 'Bias'],
      x.shape,
      N,
      `${ROW_STATS}
    for (var c = 0; c < C; c = c + 1) { result[base + c] = (X[base + c] - mean) * rstd * G[c] + Bias[c]; }`,
    ),
    [x, g, b],
    N,
  );
});

registerWebGPUKernel('StarLayerNormStats', ({ inputs, backend }) => {
  const { x } = inputs as Record<string, tf.TensorInfo>; // x [N, C] → [N, 2]: mean, rstd
  const N = x.shape[0];
  return run(backend, program('star_ln_stats', ['X'], [N, 2], N, `${ROW_STATS}
    result[2 * row] = mean;
    result[2 * row + 1] = rstd;`), [x], N);
});

// dx = rstd·(dŷ − mean(dŷ) − x̂·mean(dŷ·x̂)), dŷ = dy·g
registerWebGPUKernel('StarLayerNormDx', ({ inputs, backend }) => {
  const { x, g, dy } = inputs as Record<string, tf.TensorInfo>; // [N, C], [C], [N, C]
  const N = x.shape[0];
  return run(backend, program('star_ln_dx', ['X', 'G', 'Dy'], x.shape, N, `${ROW_STATS}
    var sd = 0.0;
    var sdx = 0.0;
    for (var c = 0; c < C; c = c + 1) {
      let d = Dy[base + c] * G[c];
      sd = sd + d;
      sdx = sdx + d * (X[base + c] - mean) * rstd;
    }
    let md = sd / f32(C);
    let mdx = sdx / f32(C);
    for (var c = 0; c < C; c = c + 1) {
      let xh = (X[base + c] - mean) * rstd;
      result[base + c] = rstd * (Dy[base + c] * G[c] - md - xh * mdx);
    }`), [x, g, dy], N);
});

// dg = Σ_rows dy·x̂ and db = Σ_rows dy, [C] each (a thread per column, looping over the rows)
registerWebGPUKernel('StarLayerNormDgDb', ({ inputs, backend }) => {
  const { x, stats, dy } = inputs as Record<string, tf.TensorInfo>; // [N, C], [N, 2], [N, C]
  const C = x.shape[1];
  // every input must be read: WebGPU drops unused bindings from the pipeline's layout, and the bind
  // group tfjs builds for all of them would then fail validation (and with it the whole submit)
  const sum = (key: string, names: string[], ins: tf.TensorInfo[], term: string) =>
    run(
      backend,
      program(
        key,
        names,
        [C],
        C,
        `
    let N = uniforms.dyShape.x;
    let C = uniforms.dyShape.y;
    var s = 0.0;
    for (var r = 0; r < N; r = r + 1) { s = s + ${term}; }
    result[row] = s;`,
      ),
      ins,
      C,
    );
  return [
    sum(
      'star_ln_dg',
      ['X', 'Stats', 'Dy'],
      [x, stats, dy],
      'Dy[r * C + row] * (X[r * C + row] - Stats[2 * r]) * Stats[2 * r + 1]',
    ),
    sum('star_ln_db', ['Dy'], [dy], 'Dy[r * C + row]'),
  ];
});

const fusedLayerNorm = tf.customGrad(((x: tf.Tensor, g: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([x, g]);
  return {
    value: tf.engine().runKernel('StarLayerNorm', { x, g, b }) as tf.Tensor,
    gradFunc: (dy: tf.Tensor, [xs, gs]: tf.Tensor[]) => {
      const stats = tf.engine().runKernel('StarLayerNormStats', { x: xs }) as tf.Tensor;
      const dx = tf.engine().runKernel('StarLayerNormDx', { x: xs, g: gs, dy }) as tf.Tensor;
      const [dg, db] = tf.engine().runKernel('StarLayerNormDgDb', { x: xs, stats, dy }) as tf.Tensor[];
      return [dx, dg, db];
    },
  };
}) as Parameters<typeof tf.customGrad>[0]);

/** LayerNorm of x [..., C] with gain g and bias b [C]: fused on webgpu, the plain ops elsewhere */
export function layerNorm<T extends tf.Tensor>(x: T, g: tf.Tensor, b: tf.Tensor): T {
  if (!useFusedKernels()) {
    const { mean, variance } = tf.moments(x, -1, true); // [..., 1]
    return x.sub(mean).mul(tf.rsqrt(variance.add(EPS))).mul(g).add(b) as T;
  }
  const C = x.shape[x.rank - 1];
  return (fusedLayerNorm(x.reshape([-1, C]), g, b) as tf.Tensor).reshape(x.shape) as T; // [N, C] rows
}
