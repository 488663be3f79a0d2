// AdamW written out with tf ops (Loshchilov & Hutter): tf.train.adam couples weight decay into the
// gradient and keeps its moments where they are awkward to serialise; here the moments and the step
// count are plain variables that go to and from one ArrayBuffer for checkpoints.
import * as tf from '@tensorflow/tfjs';
import { adamwStepFused, sumSquaresFused } from '../model/kernels/adamw.ts';
import { useFusedKernels } from '../model/kernels/webgpu.ts';

export interface AdamWConfig {
  /** decay of the first moment */
  beta1: number;
  /** decay of the second moment (0.95 as in GPT-style LM training: steadier with few, noisy batches) */
  beta2: number;
  /** added to √v̂ for stability */
  eps: number;
  /** decoupled weight decay coefficient, applied only where decays(name) */
  weightDecay: number;
}

export const defaultAdamW: AdamWConfig = { beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1 };

/**
 * Which parameters are decayed: the weight matrices of attention and MLP (`….w_*`) only. LayerNorm
 * gains/biases and biases set scales and offsets, pulling them to 0 only hurts; the embeddings (wte,
 * which is also the tied output head, and wpe) hold one row per token/position, most of which get
 * few gradient updates at this data size, so decay would erase rare rows (nanoGPT / minGPT rule).
 */
export function decays(name: string): boolean {
  return /\.w_[a-z_]+$/.test(name);
}

export class AdamW {
  readonly config: AdamWConfig;
  /** updates applied so far (the bias corrections use it) */
  step = 0;
  private readonly params: Map<string, tf.Variable>;
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();

  constructor(params: Map<string, tf.Variable>, config: Partial<AdamWConfig> = {}) {
    this.config = { ...defaultAdamW, ...config };
    this.params = params;
    // tf.variable keeps its own reference to the initial value, so tidy may free the zeros
    tf.tidy(() => {
      for (const [name, p] of params) {
        this.m.set(name, tf.variable(tf.zerosLike(p), false));
        this.v.set(name, tf.variable(tf.zerosLike(p), false));
      }
    });
  }

  /** one update with gradients by parameter name (not disposed: the caller owns them), each first
   *  multiplied by `gradScale` when given (globalNormScale's clip). On webgpu one fused kernel per
   *  weight (kernels/adamw.ts, 3 dispatches instead of ~15); elsewhere the plain ops (updates()). */
  apply(grads: Record<string, tf.Tensor>, lr: number, gradScale?: tf.Scalar): void {
    this.step++;
    tf.tidy(() => {
      for (const [name, next] of this.updates(grads, lr, gradScale)) {
        this.m.get(name)!.assign(next.m);
        this.v.get(name)!.assign(next.v);
        this.params.get(name)!.assign(next.p);
      }
    });
  }

  /** builds the next update's ops without applying it (compileAhead: the values are never read) */
  buildUpdate(grads: Record<string, tf.Tensor>, lr: number, gradScale?: tf.Scalar): void {
    this.step++;
    try {
      tf.tidy(() => {
        this.updates(grads, lr, gradScale);
      });
    } finally {
      this.step--;
    }
  }

  /** the new p, m, v of every weight at step this.step. Use inside tf.tidy. */
  private updates(
    grads: Record<string, tf.Tensor>,
    lr: number,
    gradScale?: tf.Scalar,
  ): Map<string, { p: tf.Tensor; m: tf.Tensor; v: tf.Tensor }> {
    const { beta1, beta2, eps, weightDecay } = this.config;
    const c1 = 1 - beta1 ** this.step;
    const c2 = 1 - beta2 ** this.step;
    const fused = useFusedKernels();
    const one = fused && !gradScale ? tf.scalar(1) : null;
    const out = new Map<string, { p: tf.Tensor; m: tf.Tensor; v: tf.Tensor }>();
    for (const [name, p] of this.params) {
      const grad = grads[name];
      if (!grad) throw new Error(`AdamW: no gradient for ${name}`);
      const m = this.m.get(name)!;
      const v = this.v.get(name)!;
      const decay = decays(name) && weightDecay > 0 ? 1 - lr * weightDecay : 1;
      if (fused) {
        out.set(name, adamwStepFused(p, m, v, grad, gradScale ?? one!, { lr, beta1, beta2, eps, c1, c2, decay }));
        continue;
      }
      const g = gradScale ? grad.mul(gradScale) : grad;
      const mNew = m.mul(beta1).add(g.mul(1 - beta1));
      const vNew = v.mul(beta2).add(g.square().mul(1 - beta2));
      const update = mNew.div(c1).div(vNew.div(c2).sqrt().add(eps)); // m̂ / (√v̂ + ε)
      // decoupled decay: shrink the weight itself, not through the adaptive gradient
      const decayed = decay !== 1 ? p.mul(decay) : p;
      out.set(name, { p: decayed.sub(update.mul(lr)), m: mNew, v: vNew });
    }
    return out;
  }

  /** moments and step as one ArrayBuffer (tf.io.encodeWeights) */
  async save(): Promise<{ buffer: ArrayBuffer; specs: tf.io.WeightsManifestEntry[] }> {
    const named: tf.NamedTensorMap = {};
    for (const [name, m] of this.m) named[`m/${name}`] = m;
    for (const [name, v] of this.v) named[`v/${name}`] = v;
    const step = tf.scalar(this.step, 'int32');
    named['step'] = step;
    try {
      const { data, specs } = await tf.io.encodeWeights(named);
      return { buffer: data, specs };
    } finally {
      step.dispose();
    }
  }

  load(buffer: ArrayBuffer, specs: tf.io.WeightsManifestEntry[]): void {
    const decoded = tf.io.decodeWeights(buffer, specs);
    try {
      const pairs: [tf.Variable, tf.Tensor][] = [];
      for (const [kind, map] of [
        ['m', this.m],
        ['v', this.v],
      ] as const) {
        for (const [name, variable] of map) {
          const t = decoded[`${kind}/${name}`];
          if (!t || !tf.util.arraysEqual(t.shape, variable.shape))
            throw new Error(`AdamW.load: ${kind}/${name} missing or of another shape`);
          pairs.push([variable, t]);
        }
      }
      if (!decoded['step']) throw new Error('AdamW.load: no step');
      for (const [variable, t] of pairs) variable.assign(t);
      this.step = decoded['step'].dataSync()[0];
    } finally {
      tf.dispose(Object.values(decoded));
    }
  }

  dispose(): void {
    tf.dispose([...this.m.values(), ...this.v.values()]);
    this.m.clear();
    this.v.clear();
  }
}

/**
 * The global L2 norm of all gradients and the factor min(1, maxNorm / norm) that clips it to maxNorm
 * (the direction is kept), as new scalars; pass the scale to AdamW.apply. Use inside tf.tidy.
 */
export function globalNormScale(
  grads: Record<string, tf.Tensor>,
  maxNorm: number,
): { norm: tf.Scalar; scale: tf.Scalar } {
  let norm: tf.Scalar;
  if (useFusedKernels())
    norm = sumSquaresFused(Object.values(grads)).sqrt().reshape([]) as tf.Scalar; // ⌈n/6⌉ dispatches
  else {
    const squares = Object.values(grads).map((g) => g.square().sum());
    // a chain of adds, not tf.addN: webgpu's addN binds every input to one shader, and past the
    // adapter's storage-buffer limit (8 on SwiftShader) the command buffer is invalid and the sum 0
    norm = squares.reduce((a, b) => a.add(b)).sqrt() as tf.Scalar;
  }
  const scale = tf.div(maxNorm, tf.maximum(norm, maxNorm)) as tf.Scalar; // min(1, maxNorm / norm)
  return { norm, scale };
}

/**
 * Scale all gradients together so their global L2 norm is at most maxNorm (the direction is kept).
 * Returns the clipped gradients and the norm before clipping, both new tensors. Use inside tf.tidy.
 * (The trainers pass globalNormScale's scale to AdamW.apply instead: no clipped copies.)
 */
export function clipByGlobalNorm(
  grads: Record<string, tf.Tensor>,
  maxNorm: number,
): { clipped: Record<string, tf.Tensor>; norm: tf.Scalar } {
  const { norm, scale } = globalNormScale(grads, maxNorm);
  const clipped: Record<string, tf.Tensor> = {};
  for (const [name, g] of Object.entries(grads)) clipped[name] = g.mul(scale);
  return { clipped, norm };
}

export interface LrScheduleConfig {
  /** steps of linear warm-up from peakLr/warmupSteps to peakLr */
  warmupSteps: number;
  /** steps of the whole run; the cosine reaches minLr here and stays there */
  totalSteps: number;
  peakLr: number;
  minLr: number;
}

/** learning rate for the 0-based optimizer step: linear warm-up, then cosine decay to minLr */
export function lrSchedule(step: number, c: LrScheduleConfig): number {
  if (step < c.warmupSteps) return (c.peakLr * (step + 1)) / c.warmupSteps;
  const span = Math.max(1, c.totalSteps - c.warmupSteps);
  const progress = Math.min(1, (step - c.warmupSteps) / span);
  return c.minLr + 0.5 * (c.peakLr - c.minLr) * (1 + Math.cos(Math.PI * progress));
}
