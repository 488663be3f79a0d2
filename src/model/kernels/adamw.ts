// Fused AdamW and gradient-norm kernels for `webgpu`. The plain update (src/rl/optimizer.ts) is ~14
// elementwise ops per parameter and the global norm 3 more (square, sum, add), each its own GPU
// dispatch: ~930 of the ~1,640 dispatches of an SFT step of preset s. Here:
//   StarAdamW      one parameter's update as 3 dispatches (new m, new v, new p; a tfjs program has one
//                  output, so the p program recomputes m and v in registers), the clip scale applied
//                  on the fly instead of materialising clipped gradients
//   StarSumSquares Σ g² over up to 6 gradients in one dispatch (one workgroup, tree reduction), chained:
//                  each adds the previous partial sum, so 51 tensors take 9 dispatches, no adds
// The arithmetic follows the reference op by op (same constants, same order) in f32.
import * as tf from '@tensorflow/tfjs';
import {
  elementwiseProgram,
  f32Uniforms,
  registerWebGPUKernel,
  type WebGPUBackend,
  type WebGPUProgram,
} from './webgpu.ts';

export interface AdamWStep {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** bias corrections 1 − β^t */
  c1: number;
  c2: number;
  /** the weight's decay factor, 1 − lr·wd (1: no decay) */
  decay: number;
}

// m' = m·β1 + g·(1−β1), v' = v·β2 + g²·(1−β2), with g = G·scale (the clip)
const MOMENTS = `
  let g = G[index] * Scale[0];
  let m = M[index] * uniforms.beta1 + g * uniforms.oneMinusBeta1;
  let v = V[index] * uniforms.beta2 + (g * g) * uniforms.oneMinusBeta2;`;
const UNIFORMS = ['beta1', 'oneMinusBeta1', 'beta2', 'oneMinusBeta2', 'c1', 'c2', 'eps', 'lr', 'decay'];

const programs = {
  m: (n: number) =>
    elementwiseProgram('star_adamw_m', ['M', 'V', 'G', 'Scale'], n, UNIFORMS, `${MOMENTS}\n result[index] = m;`),
  v: (n: number) =>
    elementwiseProgram('star_adamw_v', ['M', 'V', 'G', 'Scale'], n, UNIFORMS, `${MOMENTS}\n result[index] = v;`),
  // p' = p·decay − (m̂ / (√v̂ + ε))·lr, as the reference orders it
  p: (n: number) =>
    elementwiseProgram(
      'star_adamw_p',
      ['M', 'V', 'G', 'Scale', 'P'],
      n,
      UNIFORMS,
      `${MOMENTS}
    let update = (m / uniforms.c1) / (sqrt(v / uniforms.c2) + uniforms.eps);
    result[index] = P[index] * uniforms.decay - update * uniforms.lr;`,
    ),
};

registerWebGPUKernel('StarAdamW', ({ inputs, backend, attrs }) => {
  const b = backend as unknown as WebGPUBackend;
  const { p, m, v, g, scale } = inputs as Record<string, tf.TensorInfo>;
  const s = attrs as unknown as AdamWStep;
  const u = f32Uniforms([s.beta1, 1 - s.beta1, s.beta2, 1 - s.beta2, s.c1, s.c2, s.eps, s.lr, s.decay]);
  const n = tf.util.sizeFromShape(p.shape);
  const flat = (t: tf.TensorInfo): tf.TensorInfo => ({ ...t, shape: [n] }); // same buffer, rank 1: one pipeline for every weight
  const moments = [m, v, g, scale].map((t, i) => (i < 3 ? flat(t) : t));
  const run = (program: WebGPUProgram, ins: tf.TensorInfo[]) => ({
    ...b.runWebGPUProgram(program, ins, 'float32', u),
    shape: p.shape,
  });
  return [run(programs.p(n), [...moments, flat(p)]), run(programs.m(n), moments), run(programs.v(n), moments)];
});

/** one AdamW update of a weight on webgpu: the new p, m and v (the caller assigns them). `scale`
 *  [1] multiplies the gradient first (the global-norm clip; a tensor so it never leaves the GPU). */
export function adamwStepFused(
  p: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  g: tf.Tensor,
  scale: tf.Tensor,
  step: AdamWStep,
): { p: tf.Tensor; m: tf.Tensor; v: tf.Tensor } {
  const [pNew, mNew, vNew] = tf
    .engine()
    .runKernel(
      'StarAdamW',
      { p, m, v, g, scale: scale.reshape([1]) },
      step as unknown as tf.NamedAttrMap,
    ) as tf.Tensor[];
  return { p: pNew, m: mNew, v: vNew };
}

const GROUP = 6; // gradients per dispatch: 6 + the previous sum + the output ≤ 8 storage buffers (WebGPU's default limit)
const WORKGROUP = 256;

function sumSquaresProgram(k: number): WebGPUProgram {
  const names = Array.from({ length: k }, (_, i) => `G${i}`);
  const loops = names
    .map(
      (x) => `
    for (var i = t; i < uniforms.${x.toLowerCase()}Shape; i = i + ${WORKGROUP}) { let x = ${x}[i]; s = s + x * x; }`,
    )
    .join('');
  return {
    variableNames: [...names, 'Prev'],
    outputShape: [1],
    shaderKey: `star_sumsq_${k}`,
    dispatchLayout: { x: [0] },
    dispatch: [1, 1, 1],
    workgroupSize: [WORKGROUP, 1, 1],
    getUserCode: () => `
      var<workgroup> partial : array<f32, ${WORKGROUP}>;
      fn main(index : i32) {
        let t = i32(localIndex);
        var s = 0.0;${loops}
        partial[t] = s;
        workgroupBarrier();
        for (var stride = ${WORKGROUP / 2}; stride > 0; stride = stride / 2) {
          if (t < stride) { partial[t] = partial[t] + partial[t + stride]; }
          workgroupBarrier();
        }
        if (t == 0) { result[0] = Prev[0] + partial[0]; }
      }`,
  };
}

registerWebGPUKernel('StarSumSquares', ({ inputs, backend }) => {
  const b = backend as unknown as WebGPUBackend;
  const all = inputs as Record<string, tf.TensorInfo>;
  const grads = Object.keys(all)
    .filter((k) => k !== 'prev')
    .map((k) => ({ ...all[k], shape: [tf.util.sizeFromShape(all[k].shape)] }));
  return b.runWebGPUProgram(sumSquaresProgram(grads.length), [...grads, all.prev], 'float32');
});

/** Σ over every tensor of Σ x², as a [1] tensor, on webgpu in ⌈n/6⌉ chained dispatches */
export function sumSquaresFused(tensors: readonly tf.Tensor[]): tf.Tensor1D {
  return tf.tidy(() => {
    let total = tf.zeros([1]) as tf.Tensor1D;
    for (let i = 0; i < tensors.length; i += GROUP) {
      const inputs: tf.NamedTensorMap = { prev: total };
      tensors.slice(i, i + GROUP).forEach((t, j) => { inputs[`g${j}`] = t; });
      total = tf.engine().runKernel('StarSumSquares', inputs) as tf.Tensor1D;
    }
    return total;
  });
}
