// The contract between the training worker and a job. The worker owns the loop (pacing, pause,
// stop, metric batching, checkpoints, the store). A stepped job (SFT, sftJob.ts) owns the model and
// one optimiser step; a running job (RL, rlJob.ts) owns its run — the run loop the CLI runs too —
// and stores through the worker's loop (RunHost).
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

/** what every job has, whoever drives its steps */
interface JobBase {
  /** stable name of the job kind, stored on the run ('sft', 'rl'; 'demo-sort' on runs of the first builds) */
  readonly kind: string;
  readonly totalSteps: number;
  /** optimiser steps done so far */
  readonly stepsDone: number;
  /** one line for the page: what this job trains */
  readonly description: string;
  /** builds the model and optimiser (after the tfjs backend is chosen) */
  init(): Promise<void>;
  /** what the job is doing now, for the page (e.g. 'evaluating the starting point'); empty between phases */
  readonly phase?: string;
  /** set by the run loop: the job calls it when `phase` changes, so the page hears of it mid-step */
  onPhase?: (() => void) | undefined;
  /** the job evaluates every this many steps and after the last (the ETA counts those evaluations) */
  readonly evalEvery?: number;
  /** the training state now (a pause's checkpoint, or one a full store owed) */
  saveState(): Promise<JobState>;
  dispose(): void;
}

/** A job the worker's loop steps (SFT): the loop owns its schedule, its checkpoints and its resume. */
export interface SteppedJob extends JobBase {
  /** one optimiser step; resolves to that step's scalar metrics, e.g. { loss, accuracy } */
  step(): Promise<Record<string, number>>;
  /** metrics of the untrained start, recorded as step 0 before the first step of a fresh run */
  initialMetrics?(): Promise<Record<string, number>>;
  /** steps between checkpoints (default: the loop's) */
  readonly checkpointEvery?: number;
  loadState(state: JobState): Promise<void>;
  /** a few samples of what the model does now (called once, after the last step) */
  sampleEpisodes(): Promise<JobEpisode[]>;
  /** samples a step produced along the way (e.g. at a periodic evaluation); the loop stores them */
  drainEpisodes?(): JobEpisode[];
}

/** A job that runs its own life (RL: its run loop, the CLI's too), storing through the worker's loop. */
export interface RunningJob extends JobBase {
  /** the whole run, from its start or `host.resumeFrom` to its end; returns early once `host.between` says stop */
  run(host: RunHost): Promise<void>;
}

export type TrainingJob = SteppedJob | RunningJob;

/** the worker's loop as a running job sees it: where its points, samples and checkpoints go, and its pauses */
export interface RunHost {
  /** the stored state a resumed run continues from (null: a new run) */
  readonly resumeFrom: JobState | null;
  /** whether the stored points hold the evaluation of `step` (a resumed run's saved step) */
  evaluatedAt(step: number): boolean;
  /** an evaluation outside a step (the start's, step 0): its point stored and shown at once */
  evaluation(step: number, metrics: Record<string, number>, episodes: JobEpisode[]): Promise<void>;
  /** a step done in `ms`: its point and samples stored, and a checkpoint written when `save` says (the state,
   *  or true: the job's now) or one is owed */
  stepped(metrics: Record<string, number>, ms: number, episodes: JobEpisode[], save: JobState | boolean): Promise<void>;
  /** a checkpoint of `state`, its points stored first (a stop's, the end's) */
  checkpoint(state: JobState): Promise<void>;
  /** between steps: a pause waits here (checkpointed); false when a stop is asked */
  between(): Promise<boolean>;
}
