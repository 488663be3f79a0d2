// A checkpoint is a plain, structured-cloneable object (ArrayBuffers + JSON) that the IndexedDB store
// keeps as is. Weights, AdamW moments and step, and the RNG state together let a run continue
// exactly where it left off: on `cpu` the continued run matches an uninterrupted one bit for bit.
import type * as tf from '@tensorflow/tfjs';
import { createPolicy, type Policy } from '../model/transformer.ts';
import { type ModelConfig } from '../model/config.ts';
import { AdamW, type AdamWConfig } from './optimizer.ts';
import { Rng } from '../env/random.ts';
import type { CurriculumStage } from '../env/rewards.ts';

export interface Checkpoint {
  /** all policy weights (tf.io.encodeWeights) */
  weights: ArrayBuffer;
  weightSpecs: tf.io.WeightsManifestEntry[];
  /** AdamW first/second moments and step count */
  optimizer: ArrayBuffer;
  optimizerSpecs: tf.io.WeightsManifestEntry[];
  /** the run's Rng state (Rng.getState()) */
  rngState: number[];
  /** training steps completed */
  step: number;
  /** the adaptive curriculum's stage for the next step (absent: the run has no adaptive curriculum) */
  curriculumStage?: CurriculumStage;
  /** the model's shape, so the policy can be rebuilt */
  config: ModelConfig;
}

export interface TrainingState {
  policy: Policy;
  optimizer: AdamW;
  rng: Rng;
  step: number;
  curriculumStage?: CurriculumStage;
}

export async function saveCheckpoint(state: TrainingState): Promise<Checkpoint> {
  const w = await state.policy.saveWeights();
  const o = await state.optimizer.save();
  return {
    weights: w.buffer,
    weightSpecs: w.specs,
    optimizer: o.buffer,
    optimizerSpecs: o.specs,
    rngState: state.rng.getState(),
    step: state.step,
    ...(state.curriculumStage ? { curriculumStage: state.curriculumStage } : {}),
    config: { ...state.policy.config },
  };
}

/** a fresh policy, optimizer and rng holding the checkpoint's state (the caller disposes policy and optimizer) */
export function restoreCheckpoint(ckpt: Checkpoint, optimizerConfig: Partial<AdamWConfig> = {}): TrainingState {
  if (!ckpt || !isArrayBuffer(ckpt.weights) || !isArrayBuffer(ckpt.optimizer) || !Array.isArray(ckpt.rngState)) {
    throw new Error('restoreCheckpoint: not a checkpoint (weights/optimizer buffers or rngState missing)');
  }
  const policy = createPolicy(ckpt.config, 0);
  let optimizer: AdamW | null = null;
  try {
    policy.loadWeights(ckpt.weights, ckpt.weightSpecs);
    optimizer = new AdamW(policy.params, optimizerConfig);
    optimizer.load(ckpt.optimizer, ckpt.optimizerSpecs);
  } catch (e) {
    optimizer?.dispose();
    policy.dispose();
    throw e;
  }
  const stage = ckpt.curriculumStage;
  return {
    policy,
    optimizer,
    rng: Rng.fromState(ckpt.rngState),
    step: ckpt.step,
    ...(stage ? { curriculumStage: stage } : {}),
  };
}

// not `instanceof`: a buffer structured-cloned from IndexedDB or another realm has another prototype
function isArrayBuffer(x: unknown): x is ArrayBuffer {
  return Object.prototype.toString.call(x) === '[object ArrayBuffer]';
}
