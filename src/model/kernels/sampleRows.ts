// sampleTokens (model/sampling.ts) in one WebGPU dispatch instead of ~30: tfjs's cumsum alone
// is log2(V) = 10 dispatches at V = 601, and the log-softmax, the draw, the picked log-prob and the
// entropy ~20 more. One workgroup per row computes, with the plain path's formulas in its order,
//   z = (logits + ban) / T,  logp = (z − max z) − log Σ exp(z − max z),  p = exp(logp)
//   entropy = −Σ p·logp;  id = the first v with cdf_v ≥ u·cdf_{V−1} (cdf = running Σ p; inverse CDF)
//   (greedy: id = the first argmax of logits + ban, and T = 1)
// and writes [3, B]: id (as float32, exact below 2^24), logp[id], entropy — the same law as the plain
// path, draw for draw the same uniform u per row (only a u within float rounding of a CDF step can
// pick a neighbour: the running sum is added in another order than tfjs's parallel cumsum).
import * as tf from '@tensorflow/tfjs';
import { registerWebGPUKernel, type WebGPUBackend, type WebGPUProgram } from './webgpu.ts';

const WORKGROUP = 64;

function program(rows: number, banned: boolean): WebGPUProgram {
  const z = (v: string) =>
    banned
      ? `(Logits[base + ${v}] + Ban[base + ${v}]) / uniforms.temperature`
      : `Logits[base + ${v}] / uniforms.temperature`;
  const reduce = (op: string) => `
    part[tid] = acc;
    workgroupBarrier();
    for (var w = ${WORKGROUP / 2}; w > 0; w = w >> 1) {
      if (tid < w) { part[tid] = ${op}; }
      workgroupBarrier();
    }`;
  return {
    variableNames: banned ? ['Logits', 'U', 'Ban'] : ['Logits', 'U'],
    outputShape: [3, rows],
    shaderKey: `star_sample_rows_${+banned}`,
    dispatchLayout: { x: [0] },
    dispatch: [rows, 1, 1],
    workgroupSize: [WORKGROUP, 1, 1],
    uniforms: 'temperature : f32, greedy : i32,',
    getUserCode: () => `
      var<workgroup> part : array<f32, ${WORKGROUP}>;
      fn main(index : i32) {
        let row = index / ${WORKGROUP};
        let tid = i32(localId.x);
        let B = uniforms.logitsShape.x;
        let V = uniforms.logitsShape.y;
        let base = row * V;
        var acc = -3.402823e+38;
        for (var v = tid; v < V; v = v + ${WORKGROUP}) { acc = max(acc, ${z('v')}); }
        ${reduce('max(part[tid], part[tid + w])')}
        let zMax = part[0];
        workgroupBarrier();
        acc = 0.0;
        for (var v = tid; v < V; v = v + ${WORKGROUP}) { acc = acc + exp(${z('v')} - zMax); }
        ${reduce('part[tid] + part[tid + w]')}
        let logSum = log(part[0]);
        workgroupBarrier();
        acc = 0.0;
        for (var v = tid; v < V; v = v + ${WORKGROUP}) { let lp = (${z('v')} - zMax) - logSum; acc = acc + exp(lp) * lp; }
        ${reduce('part[tid] + part[tid + w]')}
        if (tid == 0) {
          var id = 0;
          if (uniforms.greedy != 0) {
            var best = ${z('0')};
            for (var v = 1; v < V; v = v + 1) { let c = ${z('v')}; if (c > best) { best = c; id = v; } }
          } else {
            var total = 0.0;
            for (var v = 0; v < V; v = v + 1) { total = total + exp((${z('v')} - zMax) - logSum); }
            let u = U[row] * total;
            var cdf = 0.0;
            id = V - 1;
            for (var v = 0; v < V; v = v + 1) {
              cdf = cdf + exp((${z('v')} - zMax) - logSum);
              if (cdf >= u) { id = v; break; }
            }
          }
          result[row] = f32(id);
          result[B + row] = (${z('id')} - zMax) - logSum;
          result[2 * B + row] = -part[0];
        }
      }`,
  };
}

registerWebGPUKernel('StarSampleRows', ({ inputs, backend, attrs }) => {
  const { logits, u, ban } = inputs as Record<string, tf.TensorInfo>;
  const { temperature, greedy } = attrs as unknown as { temperature: number; greedy: boolean };
  const B = logits.shape[0];
  return (backend as unknown as WebGPUBackend).runWebGPUProgram(
    program(B, !!ban),
    ban ? [logits, u, ban] : [logits, u],
    'float32',
    [
      { type: 'float32', data: [greedy ? 1 : temperature] },
      { type: 'int32', data: [greedy ? 1 : 0] },
    ],
  );
});

/** logits [B, V], uniforms u [B] (ignored when greedy), optional additive ban bias [B, V] → [3, B]: ids,
 *  their log-probs and the entropies of the temperature-scaled, masked distribution. webgpu only. */
export function sampleRowsFused(
  logits: tf.Tensor2D,
  u: tf.Tensor1D,
  temperature: number,
  greedy: boolean,
  ban?: tf.Tensor2D,
): tf.Tensor2D {
  const inputs: tf.NamedTensorMap = ban ? { logits, u, ban } : { logits, u };
  return tf
    .engine()
    .runKernel('StarSampleRows', inputs, { temperature, greedy } as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}
