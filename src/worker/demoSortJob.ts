// The walking skeleton's training job: a one-block decoder-only transformer learning to sort
// short digit sequences, `3 1 4 1 5 9 | 1 1 3 4 5 9`. Small enough to train in seconds on any
// backend, real enough to exercise everything the RL runs will: seeded init and data, Adam,
// checkpoints with optimiser and RNG state, metric streaming, NaN detection.
//
// It keeps its own minimal transformer (pre-LN, causal self-attention, MLP, tied embedding)
// because it predates src/model; the SFT job replaces this job, not the worker around it.
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../env/random.ts';
import type { WeightSpec } from '../store/records.ts';
import type { JobEpisode, JobState, TrainingJob } from './trainingJob.ts';

export interface DemoSortOptions {
  /** digits per sequence */
  length: number;
  /** distinct digit values */
  digits: number;
  /** model width; heads share it */
  width: number;
  heads: number;
  batch: number;
  steps: number;
  learningRate: number;
  seed: number;
}

/** Model widths per scale, so s : m : l is roughly 1 : 2 : 4 in parameters like the lab's presets. */
export const DEMO_WIDTH = { s: 32, m: 48, l: 64 } as const;

export const DEMO_DEFAULTS: Omit<DemoSortOptions, 'steps' | 'seed'> = {
  length: 6,
  digits: 10,
  width: DEMO_WIDTH.m,
  heads: 2,
  batch: 16,
  learningRate: 3e-3,
};

type Params = Record<
  'emb' | 'pos' | 'ln1g' | 'ln1b' | 'wqkv' | 'wo' | 'ln2g' | 'ln2b' | 'w1' | 'b1' | 'w2' | 'b2' | 'lnfg' | 'lnfb',
  tf.Variable
>;

export class DemoSortJob implements TrainingJob {
  readonly kind = 'demo-sort';
  readonly totalSteps: number;
  readonly description: string;
  private done = 0;
  private params: Params | null = null;
  private optimizer: tf.AdamOptimizer | null = null;
  private causalMask: tf.Tensor2D | null = null;
  private rng: Rng;
  private readonly sep: number;
  private readonly vocab: number;
  /** tokens the model sees: input digits, separator, sorted digits minus the last */
  private readonly context: number;

  constructor(readonly options: DemoSortOptions) {
    if (options.width % options.heads !== 0) throw new Error('demo job: width must divide by heads');
    this.totalSteps = options.steps;
    this.rng = new Rng(options.seed);
    this.sep = options.digits;
    this.vocab = options.digits + 1;
    this.context = 2 * options.length;
    this.description = `one-block transformer (width ${options.width}) sorting ${options.length} digits`;
  }

  get stepsDone(): number {
    return this.done;
  }

  async init(): Promise<void> {
    const { width: C, seed } = this.options;
    const V = this.vocab;
    const T = this.context;
    const init = new Rng(seed ^ 0x5eed);
    // tf.variable copies its initial value, so the initial tensor is disposed right away
    const variable = (value: tf.Tensor, name: string) => {
      const v = tf.variable(value, true, `demo-sort/${name}`);
      value.dispose();
      return v;
    };
    const normal = (shape: number[], std: number, name: string) =>
      variable(tf.randomNormal(shape, 0, std, 'float32', init.int(2 ** 31)), name);
    const constant = (shape: number[], value: number, name: string) => variable(tf.fill(shape, value), name);
    const s = 0.02;
    this.params = {
      emb: normal([V, C], s, 'emb'),
      pos: normal([T, C], s, 'pos'),
      ln1g: constant([C], 1, 'ln1g'),
      ln1b: constant([C], 0, 'ln1b'),
      wqkv: normal([C, 3 * C], s, 'wqkv'),
      wo: normal([C, C], s, 'wo'),
      ln2g: constant([C], 1, 'ln2g'),
      ln2b: constant([C], 0, 'ln2b'),
      w1: normal([C, 4 * C], s, 'w1'),
      b1: constant([4 * C], 0, 'b1'),
      w2: normal([4 * C, C], s, 'w2'),
      b2: constant([C], 0, 'b2'),
      lnfg: constant([C], 1, 'lnfg'),
      lnfb: constant([C], 0, 'lnfb'),
    };
    this.optimizer = tf.train.adam(this.options.learningRate);
    // additive causal mask: 0 on and below the diagonal, -1e9 above
    this.causalMask = tf.tidy(() => tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([T, T]), -1, 0)), -1e9)) as tf.Tensor2D;
  }

  async step(): Promise<Record<string, number>> {
    const { params, optimizer } = this.ready();
    const L = this.options.length;
    const { inputs, targets } = this.batch();
    let predicted: tf.Tensor | null = null;
    const cost = optimizer.minimize(() => {
      const logits = this.forward(params, inputs); // [B, T, V]
      const out = logits.slice([0, L, 0], [-1, L, -1]); // [B, L, V] the sorted half
      predicted = tf.keep(out.argMax(-1)); // [B, L]
      return tf.losses.softmaxCrossEntropy(tf.oneHot(targets, this.vocab), out) as tf.Scalar;
    }, true)!;
    const correct = tf.tidy(() => tf.mean(tf.cast(tf.equal(predicted!, targets), 'float32')));
    const [loss, accuracy] = await Promise.all([cost.data(), correct.data()]);
    tf.dispose([cost, correct, inputs, targets, predicted!]);
    this.done++;
    return { loss: loss[0], accuracy: accuracy[0] };
  }

  async saveState(): Promise<JobState> {
    const { params, optimizer } = this.ready();
    const weights = await tf.io.encodeWeights(params as unknown as tf.NamedTensorMap);
    // Adam names its two moment slots after the same variable; index them so none collapse.
    const slots = (await optimizer.getWeights()).map((w, i) => ({ name: `${i}:${w.name}`, tensor: w.tensor }));
    const opt = await tf.io.encodeWeights(slots);
    return {
      step: this.done,
      weights: toArrayBuffer(weights.data),
      weightSpecs: weights.specs.map(toSpec),
      optimizer: toArrayBuffer(opt.data),
      optimizerSpecs: opt.specs.map(toSpec),
      rngState: this.rng.getState(),
    };
  }

  async loadState(state: JobState): Promise<void> {
    const { params, optimizer } = this.ready();
    const weights = tf.io.decodeWeights(state.weights, state.weightSpecs);
    for (const [name, variable] of Object.entries(params)) {
      const value = weights[name];
      if (!value || !tf.util.arraysEqual(value.shape, variable.shape)) {
        tf.dispose(Object.values(weights));
        throw new Error(`checkpoint does not fit this model: weight ${name} is missing or has another shape`);
      }
      variable.assign(value);
    }
    tf.dispose(Object.values(weights));
    const slots = tf.io.decodeWeights(state.optimizer, state.optimizerSpecs);
    const ordered = Object.entries(slots)
      .map(([key, tensor]) => ({ index: Number(key.slice(0, key.indexOf(':'))), name: key.slice(key.indexOf(':') + 1), tensor }))
      .sort((a, b) => a.index - b.index)
      .map(({ name, tensor }) => ({ name, tensor }));
    await optimizer.setWeights(ordered);
    this.rng = Rng.fromState(state.rngState);
    this.done = state.step;
  }

  /** Greedy-decodes a few fresh sequences. */
  async sampleEpisodes(count = 3): Promise<JobEpisode[]> {
    const { params } = this.ready();
    const L = this.options.length;
    const { inputs, targets } = this.batch(count);
    const given = (await inputs.array()) as number[][];
    const want = (await targets.array()) as number[][];
    tf.dispose([inputs, targets]);
    // tokens so far: digits + separator, padded to the context length (causal, so padding is unseen)
    const seqs = given.map((row) => row.slice(0, L + 1));
    for (let i = 0; i < L; i++) {
      const next = tf.tidy(() => {
        const padded = tf.tensor2d(seqs.map((s) => [...s, ...new Array(this.context - s.length).fill(0)]), undefined, 'int32');
        return this.forward(params, padded).slice([0, L + i, 0], [-1, 1, -1]).argMax(-1).reshape([-1]);
      });
      const tokens = (await next.array()) as number[];
      next.dispose();
      tokens.forEach((t, b) => seqs[b].push(t));
    }
    return seqs.map((s, b) => {
      const output = s.slice(L + 1);
      const right = output.filter((t, i) => t === want[b][i]).length;
      return { trajectory: { input: s.slice(0, L), target: want[b], output }, reward: right / L };
    });
  }

  dispose(): void {
    if (this.params) tf.dispose(Object.values(this.params));
    this.optimizer?.dispose();
    this.causalMask?.dispose();
    this.params = null;
    this.optimizer = null;
    this.causalMask = null;
  }

  /** Transformer forward pass: tokens [B, T] int32 → logits [B, T, V]. */
  private forward(p: Params, tokens: tf.Tensor2D): tf.Tensor3D {
    return tf.tidy(() => {
      const [B, T] = tokens.shape;
      const C = this.options.width;
      const H = this.options.heads;
      const D = C / H;
      const x = tf.add(tf.gather(p.emb, tokens), p.pos.slice([0, 0], [T, C])); // [B, T, C]
      // attention
      // one matmul for q, k and v: on WebGPU every kernel launch counts
      const h = layerNorm(x, p.ln1g, p.ln1b).reshape([B * T, C]);
      const qkv = tf.matMul(h, p.wqkv).reshape([B, T, 3, H, D]).transpose([2, 0, 3, 1, 4]); // [3, B, H, T, D]
      const [q, k, v] = tf.unstack(qkv); // each [B, H, T, D]
      const mask = this.causalMask!.slice([0, 0], [T, T]);
      const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(D)), mask); // [B, H, T, T]
      const attended = tf.matMul(tf.softmax(scores), v).transpose([0, 2, 1, 3]).reshape([B * T, C]); // [B*T, C]
      const x1 = tf.add(x, tf.matMul(attended, p.wo).reshape([B, T, C]));
      // MLP
      const h2 = layerNorm(x1, p.ln2g, p.ln2b).reshape([B * T, C]);
      const mlp = tf.add(tf.matMul(tf.relu(tf.add(tf.matMul(h2, p.w1), p.b1)), p.w2), p.b2); // [B*T, C]
      const x2 = tf.add(x1, mlp.reshape([B, T, C]));
      // tied output embedding
      const hf = layerNorm(x2, p.lnfg, p.lnfb).reshape([B * T, C]);
      return tf.matMul(hf, p.emb, false, true).reshape([B, T, this.vocab]) as tf.Tensor3D; // [B, T, V]
    });
  }

  /** A batch of random digit sequences: inputs [B, 2L] (digits | sep | sorted[:-1]), targets [B, L]. */
  private batch(size = this.options.batch): { inputs: tf.Tensor2D; targets: tf.Tensor2D } {
    const { length: L, digits } = this.options;
    const inputs = new Int32Array(size * 2 * L);
    const targets = new Int32Array(size * L);
    for (let b = 0; b < size; b++) {
      const xs = Array.from({ length: L }, () => this.rng.int(digits));
      const sorted = [...xs].sort((a, c) => a - c);
      const seq = [...xs, this.sep, ...sorted];
      inputs.set(seq.slice(0, 2 * L), b * 2 * L);
      targets.set(sorted, b * L);
    }
    return { inputs: tf.tensor2d(inputs, [size, 2 * L], 'int32'), targets: tf.tensor2d(targets, [size, L], 'int32') };
  }

  private ready(): { params: Params; optimizer: tf.AdamOptimizer } {
    if (!this.params || !this.optimizer) throw new Error('demo job: call init() first');
    return { params: this.params, optimizer: this.optimizer };
  }
}

function layerNorm(x: tf.Tensor, gain: tf.Tensor, bias: tf.Tensor): tf.Tensor {
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, 1e-5))), gain), bias);
}

function toSpec(entry: tf.io.WeightsManifestEntry): WeightSpec {
  return { name: entry.name, shape: [...entry.shape], dtype: entry.dtype as WeightSpec['dtype'] };
}

/** encodeWeights may hand back a view; the store wants a standalone ArrayBuffer. */
function toArrayBuffer(data: ArrayBuffer): ArrayBuffer {
  return data.slice(0);
}
