// The reference side of the fused WebGPU kernels (src/model/kernels), on tfjs `cpu`: the ops the
// kernels are checked against in the browser (bench/browser/kernelCheck.ts, scripts/webgpu-kernels.mjs)
// are right, and the trainers' new clip path (globalNormScale's scale handed to AdamW.apply) is bit for
// bit the old one (clipped copies), so cpu/wasm checkpoints reproduce exactly.
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { AdamW, clipByGlobalNorm, globalNormScale } from '../../src/rl/optimizer.ts';
import { setFusedKernels, useFusedKernels } from '../../src/model/kernels/webgpu.ts';
import { layerNorm } from '../../src/model/kernels/layerNorm.ts';
import { biasGelu } from '../../src/model/kernels/biasGelu.ts';

await tf.setBackend('cpu');

function params(): Map<string, tf.Variable> {
  return new Map<string, tf.Variable>([
    ['h0.mlp.w_fc', tf.tidy(() => tf.variable(tf.tensor2d([[0.5, -1], [2, 0.25]])))],
    ['h0.mlp.b_fc', tf.tidy(() => tf.variable(tf.tensor1d([0.1, -0.2])))],
  ]);
}
const gradsAt = (step: number): Record<string, tf.Tensor> => ({
  'h0.mlp.w_fc': tf.tensor2d([[3 * step, -1], [0.5, 2]]),
  'h0.mlp.b_fc': tf.tensor1d([-4, 1 + step]),
});

describe('fused kernels: selection', () => {
  it('run only on webgpu, and can be turned off', () => {
    expect(useFusedKernels()).toBe(false); // cpu
    setFusedKernels(false);
    expect(useFusedKernels()).toBe(false);
    setFusedKernels(true);
  });
});

describe('AdamW reference (cpu)', () => {
  it('globalNormScale + apply(scale) is bit for bit clipByGlobalNorm + apply(clipped)', async () => {
    const [a, b] = [params(), params()];
    const [optA, optB] = [new AdamW(a), new AdamW(b)];
    const before = tf.memory().numTensors;
    for (let step = 0; step < 3; step++) {
      const g = gradsAt(step);
      const { norm, scale } = tf.tidy(() => globalNormScale(g, 1));
      optA.apply(g, 0.01, scale);
      const { clipped, norm: normB } = tf.tidy(() => clipByGlobalNorm(g, 1));
      optB.apply(clipped, 0.01);
      expect(await norm.data()).toEqual(await normB.data());
      tf.dispose([norm, scale, normB, ...Object.values(clipped), ...Object.values(g)]);
    }
    expect(tf.memory().numTensors).toBe(before);
    for (const name of a.keys()) expect(await a.get(name)!.data()).toEqual(await b.get(name)!.data());
    tf.dispose([...a.values(), ...b.values()]);
    optA.dispose();
    optB.dispose();
  });

  it('matches AdamW written out in float64 (decay on w_*, not on biases; clip scale first)', async () => {
    const ps = params();
    const opt = new AdamW(ps, { beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1 });
    const lr = 0.01;
    const ref = new Map([...ps].map(([n, v]) => [n, { p: Array.from(v.dataSync()), m: [0, 0, 0, 0].slice(0, v.size), v: [0, 0, 0, 0].slice(0, v.size) }]));
    for (let t = 1; t <= 3; t++) {
      const g = gradsAt(t - 1);
      const flat = Object.values(g).flatMap((x) => Array.from(x.dataSync()));
      const norm = Math.sqrt(flat.reduce((s, x) => s + x * x, 0));
      const scale = 1 / Math.max(norm, 1);
      const s = tf.scalar(scale);
      opt.apply(g, lr, s);
      for (const [name, r] of ref) {
        const gv = Array.from(g[name].dataSync()).map((x) => x * scale);
        const decay = name.includes('.w_') ? 1 - lr * 0.1 : 1;
        r.p = r.p.map((p, i) => {
          r.m[i] = 0.9 * r.m[i] + 0.1 * gv[i];
          r.v[i] = 0.95 * r.v[i] + 0.05 * gv[i] * gv[i];
          return p * decay - lr * (r.m[i] / (1 - 0.9 ** t)) / (Math.sqrt(r.v[i] / (1 - 0.95 ** t)) + 1e-8);
        });
      }
      tf.dispose([s, ...Object.values(g)]);
    }
    for (const [name, r] of ref) {
      const got = Array.from(await ps.get(name)!.data());
      got.forEach((x, i) => expect(x).toBeCloseTo(r.p[i], 6));
    }
    tf.dispose([...ps.values()]);
    opt.dispose();
  });
});

describe('LayerNorm reference (cpu)', () => {
  it('autodiff of the plain ops equals the closed form the webgpu kernels compute (dx, dg, db)', async () => {
    const [N, C] = [3, 5];
    const xs = Array.from({ length: N * C }, (_, i) => Math.sin(i * 1.3) * 2);
    const gs = Array.from({ length: C }, (_, i) => 0.5 + i / 4);
    const bs = Array.from({ length: C }, (_, i) => i / 10 - 0.2);
    const ws = Array.from({ length: N * C }, (_, i) => Math.cos(i * 0.7));
    const [x, g, b, w] = [tf.tensor2d(xs, [N, C]), tf.tensor1d(gs), tf.tensor1d(bs), tf.tensor2d(ws, [N, C])];
    const [dx, dg, db] = tf.grads((xi: tf.Tensor, gi: tf.Tensor, bi: tf.Tensor) => layerNorm(xi, gi, bi).mul(w).sum())([x, g, b]);
    // StarLayerNormDx / DgDb in float64: x̂ = (x − mean)·rstd, dŷ = dy·g, dx = rstd·(dŷ − mean(dŷ) − x̂·mean(dŷ·x̂))
    const refDx: number[] = [];
    const refDg = new Array<number>(C).fill(0);
    const refDb = new Array<number>(C).fill(0);
    for (let r = 0; r < N; r++) {
      const row = xs.slice(r * C, r * C + C);
      const mean = row.reduce((a, v) => a + v, 0) / C;
      const rstd = 1 / Math.sqrt(row.reduce((a, v) => a + (v - mean) ** 2, 0) / C + 1e-5);
      const xh = row.map((v) => (v - mean) * rstd);
      const dy = ws.slice(r * C, r * C + C);
      const d = dy.map((v, c) => v * gs[c]);
      const md = d.reduce((a, v) => a + v, 0) / C;
      const mdx = d.reduce((a, v, c) => a + v * xh[c], 0) / C;
      d.forEach((v, c) => { refDx.push(rstd * (v - md - xh[c] * mdx)); refDg[c] += dy[c] * xh[c]; refDb[c] += dy[c]; });
    }
    const close = async (t: tf.Tensor, ref: number[]) => Array.from(await t.data()).forEach((v, i) => expect(v).toBeCloseTo(ref[i], 4));
    await close(dx, refDx);
    await close(dg, refDg);
    await close(db, refDb);
    tf.dispose([x, g, b, w, dx, dg, db]);
  });
});

describe('bias+GELU reference (cpu)', () => {
  it('autodiff of the plain ops equals the closed form the webgpu kernel computes (dz = dy·gelu′(z + b))', async () => {
    const [N, F] = [2, 6];
    const zs = Array.from({ length: N * F }, (_, i) => Math.sin(i * 1.7) * 3);
    const bs = Array.from({ length: F }, (_, i) => i / 5 - 0.5);
    const ws = Array.from({ length: N * F }, (_, i) => Math.cos(i * 0.9));
    const [z, b, w] = [tf.tensor3d(zs, [1, N, F]), tf.tensor1d(bs), tf.tensor3d(ws, [1, N, F])];
    const [dz, db] = tf.grads((zi: tf.Tensor, bi: tf.Tensor) => biasGelu(zi as tf.Tensor3D, bi).mul(w).sum())([z, b]);
    const k = 2 * Math.sqrt(2 / Math.PI);
    const refDz = zs.map((v, i) => {
      const u = v + bs[i % F];
      const s = 1 / (1 + Math.exp(-k * (u + 0.044715 * u ** 3)));
      return ws[i] * (s + u * s * (1 - s) * k * (1 + 3 * 0.044715 * u * u));
    });
    const refDb = bs.map((_, c) => refDz.filter((__, i) => i % F === c).reduce((a, v) => a + v, 0));
    Array.from(await dz.data()).forEach((v, i) => expect(v).toBeCloseTo(refDz[i], 4));
    Array.from(await db.data()).forEach((v, i) => expect(v).toBeCloseTo(refDb[i], 4));
    tf.dispose([z, b, w, dz, db]);
  });
});
