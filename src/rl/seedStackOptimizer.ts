// The optimiser of S seeds in one program (model/seedStack.ts): AdamW is elementwise, so the lab's own
// AdamW (optimizer.ts) updates [S, ...] weights as it updates one seed's, moment for moment. What is not
// elementwise is the gradient-norm clip: each seed is clipped by its own global norm (over its slice of
// every gradient), as its own run would be, never by the norm of all seeds together.
import * as tf from '@tensorflow/tfjs';
import { AdamW, type AdamWConfig } from './optimizer.ts';

/**
 * Each seed's global L2 norm over every gradient [S, ...] and its clip factor min(1, maxNorm / norm),
 * [S] each, as new tensors (globalNormScale, seed by seed). Use inside tf.tidy.
 */
export function perSeedNormScale(grads: Record<string, tf.Tensor>, seeds: number, maxNorm: number): { norms: tf.Tensor1D; scales: tf.Tensor1D } {
  const squares = Object.entries(grads).map(([name, g]) => {
    if (g.shape[0] !== seeds) throw new Error(`perSeedNormScale: gradient ${name} is [${g.shape}], not [${seeds}, ...]`);
    return g.reshape([seeds, -1]).square().sum(1); // [S]
  });
  // a chain of adds, not tf.addN (webgpu's binds every input to one shader: globalNormScale's reason)
  const norms = squares.reduce((a, b) => a.add(b)).sqrt() as tf.Tensor1D; // [S]
  const scales = tf.div(maxNorm, tf.maximum(norms, maxNorm)) as tf.Tensor1D; // [S]
  return { norms, scales };
}

/** AdamW over [S, ...] weights with a per-seed gradient-norm clip */
export class SeedStackedAdamW {
  readonly seeds: number;
  private readonly adam: AdamW;

  constructor(params: Map<string, tf.Variable>, seeds: number, config: Partial<AdamWConfig> = {}) {
    for (const [name, p] of params) if (p.shape[0] !== seeds) throw new Error(`SeedStackedAdamW: ${name} is [${p.shape}], not [${seeds}, ...]`);
    this.seeds = seeds;
    this.adam = new AdamW(params, config);
  }

  get step(): number {
    return this.adam.step;
  }

  /** one update of every seed; each seed's gradients first clipped to its own global norm maxNorm
   *  (none when maxNorm is Infinity). Returns each seed's norm before clipping, [S] (the caller disposes
   *  it; a tensor, so that a step need not wait for a readback: webgpu in Node has no dataSync). */
  apply(grads: Record<string, tf.Tensor>, lr: number, maxNorm = Infinity): tf.Tensor1D {
    const S = this.seeds;
    const { norms, scaled } = tf.tidy(() => {
      const { norms, scales } = perSeedNormScale(grads, S, Number.isFinite(maxNorm) ? maxNorm : Number.MAX_VALUE);
      const scaled: Record<string, tf.Tensor> = {};
      for (const [name, g] of Object.entries(grads)) scaled[name] = Number.isFinite(maxNorm) ? g.mul(scales.reshape([S, ...g.shape.slice(1).map(() => 1)])) : g.clone();
      return { norms, scaled };
    });
    try {
      this.adam.apply(scaled, lr);
    } finally {
      tf.dispose(Object.values(scaled));
    }
    return norms;
  }

  dispose(): void {
    this.adam.dispose();
  }
}
