// The MLP's bias and activation, y = gelu(z + b) with GPT-2's tanh GELU written as u·σ(2k(u + 0.044715u³))
// (ops.ts gelu). Plain tfjs spends 8 dispatches on it forward (the bias add, 7 for GELU) and ~14 on
// its autodiff backward, per layer. On webgpu: one fused kernel forward (StarBiasGelu) and two backward
// (StarBiasGeluGrad for dz = dy·gelu'(z + b), then tfjs's column sum for db). Elsewhere the plain ops,
// unchanged (cpu/wasm results stay bit for bit), which are the reference in the checks.
import * as tf from '@tensorflow/tfjs';
import { gelu } from '../ops.ts';
import { elementwiseProgram, registerWebGPUKernel, useFusedKernels, type WebGPUBackend } from './webgpu.ts';

// u = z + b (b broadcast over the rows of [N, F]); t = 2k(u + 0.044715u³) in the reference's op order
const PRE = `
  let F = uniforms.biasShape;
  let u = Z[index] + Bias[index % F];
  let t = (u + ((u * u) * u) * 0.044715) * ${2 * Math.sqrt(2 / Math.PI)};
  let s = 1.0 / (1.0 + exp(-1.0 * t));`;

registerWebGPUKernel('StarBiasGelu', ({ inputs, backend }) => {
  const { z, b } = inputs as Record<string, tf.TensorInfo>; // z [N, F], b [F]
  const n = tf.util.sizeFromShape(z.shape);
  const out = (backend as unknown as WebGPUBackend).runWebGPUProgram(
    elementwiseProgram('star_bias_gelu', ['Z', 'Bias'], n, [], `${PRE}\n result[index] = u * s;`), [z, b], 'float32');
  return { ...out, shape: z.shape };
});

// d/du u·σ(t) = σ + u·σ(1 − σ)·2k(1 + 3·0.044715u²)
registerWebGPUKernel('StarBiasGeluGrad', ({ inputs, backend }) => {
  const { z, b, dy } = inputs as Record<string, tf.TensorInfo>; // [N, F], [F], [N, F]
  const n = tf.util.sizeFromShape(z.shape);
  const out = (backend as unknown as WebGPUBackend).runWebGPUProgram(
    elementwiseProgram('star_bias_gelu_grad', ['Z', 'Bias', 'Dy'], n, [], `${PRE}
      let dt = ${2 * Math.sqrt(2 / Math.PI)} * (1.0 + 3.0 * 0.044715 * u * u);
      result[index] = Dy[index] * (s + u * s * (1.0 - s) * dt);`), [z, b, dy], 'float32');
  return { ...out, shape: z.shape };
});

const fusedBiasGelu = tf.customGrad(((z: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
  save([z, b]);
  return {
    value: tf.engine().runKernel('StarBiasGelu', { z, b }) as tf.Tensor,
    gradFunc: (dy: tf.Tensor, [zs, bs]: tf.Tensor[]) => {
      const dz = tf.engine().runKernel('StarBiasGeluGrad', { z: zs, b: bs, dy }) as tf.Tensor; // [N, F]
      return [dz, dz.sum(0)]; // db: Σ over the rows
    },
  };
}) as Parameters<typeof tf.customGrad>[0]);

/** gelu(z + b) for z [B, T, F] and b [F]: fused on webgpu, the plain ops elsewhere */
export function biasGelu(z: tf.Tensor3D, b: tf.Tensor): tf.Tensor3D {
  if (!useFusedKernels()) return gelu(z.add(b) as tf.Tensor3D);
  const F = z.shape[2];
  return (fusedBiasGelu(z.reshape([-1, F]), b) as tf.Tensor).reshape(z.shape) as tf.Tensor3D; // [N, F] rows
}
