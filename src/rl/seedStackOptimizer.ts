// The optimiser of S seeds in one program (model/seedStack.ts): AdamW is elementwise, so the lab's own
// AdamW's math (optimizer.ts) updates [S, ...] weights as it updates one seed's, moment for moment. What is not
// elementwise is the gradient-norm clip: each seed is clipped by its own global norm (over its slice of
// every gradient), as its own run would be, never by the norm of all seeds together.
import * as tf from '@tensorflow/tfjs';
import { decays, defaultAdamW, type AdamWConfig } from './optimizer.ts';
import { adamwStepFused } from '../model/kernels/adamw.ts';
import { useFusedKernels } from '../model/kernels/webgpu.ts';

/**
 * Each seed's global L2 norm over every gradient [S, ...] and its clip factor min(1, maxNorm / norm),
 * [S] each, as new tensors (globalNormScale, seed by seed). Use inside tf.tidy.
 */
export function perSeedNormScale(
  grads: Record<string, tf.Tensor>,
  seeds: number,
  maxNorm: number,
): { norms: tf.Tensor1D; scales: tf.Tensor1D } {
  const squares = Object.entries(grads).map(([name, g]) => {
    if (g.shape[0] !== seeds)
      throw new Error(`perSeedNormScale: gradient ${name} is [${g.shape}], not [${seeds}, ...]`);
    return g.reshape([seeds, -1]).square().sum(1); // [S]
  });
  // a chain of adds, not tf.addN (webgpu's binds every input to one shader: globalNormScale's reason)
  const norms = squares.reduce((a, b) => a.add(b)).sqrt() as tf.Tensor1D; // [S]
  const scales = tf.div(maxNorm, tf.maximum(norms, maxNorm)) as tf.Tensor1D; // [S]
  return { norms, scales };
}

/**
 * AdamW over [S, ...] weights with a per-seed gradient-norm clip. Each seed keeps its own step count: in
 * an RL step a seed whose rollouts carried no signal has fewer mini-batches than the others, and its own
 * run would not have stepped, so apply() takes which seeds step (the others' weights and moments stay).
 */
export class SeedStackedAdamW {
  readonly seeds: number;
  readonly config: AdamWConfig;
  /** per seed: the updates it has taken (its bias corrections use it) */
  readonly steps: number[];
  private readonly params: Map<string, tf.Variable>;
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();

  constructor(params: Map<string, tf.Variable>, seeds: number, config: Partial<AdamWConfig> = {}) {
    for (const [name, p] of params)
      if (p.shape[0] !== seeds) throw new Error(`SeedStackedAdamW: ${name} is [${p.shape}], not [${seeds}, ...]`);
    this.seeds = seeds;
    this.config = { ...defaultAdamW, ...config };
    this.params = params;
    this.steps = new Array<number>(seeds).fill(0);
    tf.tidy(() => {
      for (const [name, p] of params) {
        this.m.set(name, tf.variable(tf.zerosLike(p), false));
        this.v.set(name, tf.variable(tf.zerosLike(p), false));
      }
    });
  }

  /** the most updates any seed has taken */
  get step(): number {
    return Math.max(...this.steps);
  }

  /** one update of every seed in `stepping` (default all); each seed's gradients first clipped to its own
   *  global norm maxNorm (none when maxNorm is Infinity). Returns each seed's norm before clipping, [S] (the
   *  caller disposes it; a tensor, so that a step need not wait for a readback: webgpu in Node has no dataSync). */
  apply(grads: Record<string, tf.Tensor>, lr: number, maxNorm = Infinity, stepping?: readonly boolean[]): tf.Tensor1D {
    const S = this.seeds;
    const on = stepping ?? new Array<boolean>(S).fill(true);
    if (on.length !== S) throw new Error(`SeedStackedAdamW: ${on.length} stepping flags for ${S} seeds`);
    if (!on.some(Boolean)) throw new Error('SeedStackedAdamW: no seed steps');
    on.forEach((a, s) => { if (a) this.steps[s]++; });
    const { beta1, beta2, eps, weightDecay } = this.config;
    const uniform = on.every(Boolean) && this.steps.every((t) => t === this.steps[0]);
    return tf.tidy(() => {
      const clip = Number.isFinite(maxNorm);
      const { norms, scales } = perSeedNormScale(grads, S, clip ? maxNorm : Number.MAX_VALUE);
      // per seed [S, 1, …]: its bias corrections and whether it steps
      const perSeed = (xs: number[], rank: number) =>
        tf.tensor1d(xs).reshape([S, ...new Array<number>(rank - 1).fill(1)]);
      for (const [name, p] of this.params) {
        const grad = grads[name];
        if (!grad) throw new Error(`SeedStackedAdamW: no gradient for ${name}`);
        const m = this.m.get(name)!;
        const v = this.v.get(name)!;
        const decay = decays(name) && weightDecay > 0 ? 1 - lr * weightDecay : 1;
        const g = clip ? grad.mul(scales.reshape([S, ...grad.shape.slice(1).map(() => 1)])) : grad;
        if (uniform && useFusedKernels()) { // every seed at the same step: AdamW's fused kernel, as one seed's
          const c = { c1: 1 - beta1 ** this.steps[0], c2: 1 - beta2 ** this.steps[0] };
          const next = adamwStepFused(p, m, v, g, tf.scalar(1), { lr, beta1, beta2, eps, decay, ...c });
          m.assign(next.m);
          v.assign(next.v);
          p.assign(next.p);
          continue;
        }
        // AdamW's plain ops (optimizer.ts), the bias corrections per seed; a seed that does not step keeps its state
        const correction = (beta: number) =>
          (uniform ? 1 - beta ** this.steps[0] : perSeed(this.steps.map((t) => 1 - beta ** Math.max(1, t)), p.rank));
        const c1 = correction(beta1);
        const c2 = correction(beta2);
        const mNew = m.mul(beta1).add(g.mul(1 - beta1));
        const vNew = v.mul(beta2).add(g.square().mul(1 - beta2));
        const update = mNew.div(c1).div(vNew.div(c2).sqrt().add(eps)); // m̂ / (√v̂ + ε)
        const pNew = (decay !== 1 ? p.mul(decay) : p).sub(update.mul(lr));
        if (on.every(Boolean)) {
          m.assign(mNew);
          v.assign(vNew);
          p.assign(pNew);
        } else {
          const keep = perSeed(on.map((a) => (a ? 1 : 0)), p.rank).cast('bool').broadcastTo(p.shape);
          m.assign(tf.where(keep, mNew, m));
          v.assign(tf.where(keep, vNew, v));
          p.assign(tf.where(keep, pNew, p));
        }
      }
      return norms;
    });
  }

  dispose(): void {
    tf.dispose([...this.m.values(), ...this.v.values()]);
    this.m.clear();
    this.v.clear();
  }
}
