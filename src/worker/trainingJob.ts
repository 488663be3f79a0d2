// The contract between the training worker and a job. The worker owns the loop (pacing, pause,
// stop, metric batching, checkpoints, the store); a job owns the model and one optimiser step.
// The SFT job (sftJob.ts) and the RL job (rlJob.ts) implement it.
import type * as tf from '@tensorflow/tfjs';
import type { Checkpoint } from '../rl/checkpoint.ts';
import type { WeightSpec } from '../store/records.ts';

/** Everything needed to continue a job exactly where it was. */
export interface JobState {
  step: number;
  /** tf.io.encodeWeights of the model's variables */
  weights: ArrayBuffer;
  weightSpecs: WeightSpec[];
  /** tf.io.encodeWeights of the optimiser's slots */
  optimizer: ArrayBuffer;
  optimizerSpecs: WeightSpec[];
  /** Rng.getState() of the job's data/sampling stream */
  rngState: number[];
  /** an RL run's adaptive curriculum stage (absent otherwise) */
  curriculumStage?: Checkpoint['curriculumStage'];
}

/** a trainer's checkpoint as the job state the worker stores (the model config is the job's own) */
export function jobState(ckpt: Checkpoint): JobState {
  return {
    step: ckpt.step,
    weights: ckpt.weights,
    weightSpecs: ckpt.weightSpecs.map(toSpec),
    optimizer: ckpt.optimizer,
    optimizerSpecs: ckpt.optimizerSpecs.map(toSpec),
    rngState: ckpt.rngState,
    ...(ckpt.curriculumStage ? { curriculumStage: ckpt.curriculumStage } : {}),
  };
}

function toSpec(entry: tf.io.WeightsManifestEntry): WeightSpec {
  return { name: entry.name, shape: [...entry.shape], dtype: entry.dtype as WeightSpec['dtype'] };
}

/** A sample the job wants kept with the run (shown by the episode viewer). */
export interface JobEpisode {
  trajectory: unknown;
  reward?: number;
}

export interface TrainingJob {
  /** stable name of the job kind, stored on the run ('sft', 'rl'; 'demo-sort' on runs of the first builds) */
  readonly kind: string;
  readonly totalSteps: number;
  /** optimiser steps done so far */
  readonly stepsDone: number;
  /** one line for the page: what this job trains */
  readonly description: string;
  /** builds the model and optimiser (after the tfjs backend is chosen) */
  init(): Promise<void>;
  /** one optimiser step; resolves to that step's scalar metrics, e.g. { loss, accuracy } */
  step(): Promise<Record<string, number>>;
  /** metrics of the untrained start, recorded as step 0 before the first step of a fresh run (RL: the evaluation of the
   * starting point) */
  initialMetrics?(): Promise<Record<string, number>>;
  /** what the job is doing now, for the page (e.g. 'evaluating the starting point'); empty between phases */
  readonly phase?: string;
  /** set by the run loop: the job calls it when `phase` changes, so the page hears of it mid-step */
  onPhase?: (() => void) | undefined;
  /** steps between checkpoints (default: the loop's); RL steps are long, so it saves more often */
  readonly checkpointEvery?: number;
  /** whether the state after `step` is due to be checkpointed (default: every checkpointEvery steps); the RL
   *  job answers from its run loop's schedule, which also saves at each evaluation */
  checkpointDue?(step: number): boolean;
  /** the job evaluates every this many steps and after the last (the ETA counts those evaluations) */
  readonly evalEvery?: number;
  saveState(): Promise<JobState>;
  loadState(state: JobState): Promise<void>;
  /** a few samples of what the model does now (called once, after the last step) */
  sampleEpisodes(): Promise<JobEpisode[]>;
  /** samples a step produced along the way (e.g. at a periodic evaluation); the loop stores them */
  drainEpisodes?(): JobEpisode[];
  dispose(): void;
}
