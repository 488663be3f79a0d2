// The records the lab keeps in IndexedDB, as valibot schemas. Everything read back is checked
// against them: a record written by an older build, a half-written record or a hand-edited one
// is reported and skipped instead of crashing the page (or the worker) later.
import * as v from 'valibot';
import { RunCalibrationSchema } from './calibrationRecords.ts';

export const RUN_STATUSES = ['running', 'paused', 'completed', 'stopped', 'failed', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

const finite = v.pipe(v.number(), v.finite());
const step = v.pipe(v.number(), v.integer(), v.minValue(0));

export const RunSummarySchema = v.object({
  /** steps done so far */
  steps: step,
  totalSteps: step,
  /** last value of each metric, e.g. { loss: 0.41, accuracy: 0.88 } */
  last: v.record(v.string(), v.number()),
  /** mean step time (ms) on this run's backend */
  meanStepMs: v.optional(finite),
  /** mean evaluation time (ms) on this run's backend (absent on runs of older builds) */
  meanEvalMs: v.optional(finite),
  /** a completed run's wall time from its start request to its end (ms), the build and load included; absent
   *  on resumed runs (their pause is not training) and on runs of older builds. The run estimate's start. */
  wallMs: v.optional(finite),
  error: v.optional(v.string()),
});

/** a run started by a lesson (src/lessons/lessons.ts): the learner's prediction is kept with the run */
export const LessonTagSchema = v.object({
  /** the lesson's id */
  id: v.string(),
  /** one sitting: the arms started together share it */
  session: v.string(),
  /** this run's arm (its key in the lesson) */
  arm: v.string(),
  /** the prediction picked before running (its key in the lesson) */
  prediction: v.string(),
  /** the arms this sitting runs, in order */
  arms: v.array(v.string()),
});

export const RunSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1)),
  /** what runs: 'rl' or 'sft' (the stage); 'demo-sort' on runs of the first builds */
  kind: v.string(),
  /** the LabConfig of the run (validated by src/lab when it is used) */
  config: v.record(v.string(), v.unknown()),
  /** RL: where it started (a StartingPointSource, checked by the worker when it is used) */
  startingPoint: v.optional(v.record(v.string(), v.unknown())),
  /** set when a lesson started the run */
  lesson: v.optional(LessonTagSchema),
  status: v.picklist(RUN_STATUSES),
  createdAt: finite,
  updatedAt: finite,
  /** tfjs backend the run trained on, with the adapter, e.g. 'webgpu · swiftshader' */
  backend: v.string(),
  /** how that backend was chosen: measured (and the figures), forced with ?backend=, or the only one (absent on older
   * runs) */
  calibration: v.optional(RunCalibrationSchema),
  summary: RunSummarySchema,
});

export const MetricPointSchema = v.object({
  runId: v.string(),
  step,
  /** ms since the run started */
  t: finite,
  values: v.record(v.string(), v.number()),
});

/** a tensor's name, shape and dtype: the same fields as tfjs' WeightsManifestEntry */
export const WeightSpecSchema = v.object({
  name: v.string(),
  shape: v.array(v.pipe(v.number(), v.integer(), v.minValue(0))),
  dtype: v.picklist(['float32', 'int32', 'bool', 'string', 'complex64']),
});

export const CheckpointSchema = v.object({
  runId: v.string(),
  step,
  createdAt: finite,
  /** tf.io.encodeWeights(...).data */
  weights: v.instance(ArrayBuffer),
  weightSpecs: v.array(WeightSpecSchema),
  /** the optimizer's slots (Adam moments, iteration count), encoded the same way */
  optimizer: v.instance(ArrayBuffer),
  optimizerSpecs: v.array(WeightSpecSchema),
  /** Rng.getState() of the run's random source, so a resumed run draws what it would have drawn */
  rngState: v.array(v.number()),
  /** an RL run's adaptive curriculum stage, which its resume needs (absent otherwise) */
  curriculumStage: v.optional(v.picklist(['sum', 'macro', 'success'])),
});

export const EpisodeSchema = v.object({
  runId: v.string(),
  step,
  /** index of the episode within its step */
  index: v.pipe(v.number(), v.integer(), v.minValue(0)),
  createdAt: finite,
  /** the trajectory (src/worker/sampleEpisode.ts SampleEpisode, with `rl` on RL runs; older demo runs: input/output
   * tokens) */
  trajectory: v.unknown(),
  reward: v.optional(v.number()),
});

/** one queued run (src/lab/runQueue.ts QueueItem; its config is checked again by src/lab/queueRestore.ts) */
export const QueueItemSchema = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  label: v.string(),
  config: v.record(v.string(), v.unknown()),
  status: v.picklist(['waiting', 'running', 'completed', 'failed', 'stopped']),
  runId: v.nullable(v.pipe(v.string(), v.minLength(1))),
  step,
  meanStepMs: v.nullable(finite),
  etaMs: v.nullable(finite),
  error: v.optional(v.string()),
});

/** the page's run queue, kept so that a reload does not lose a queued grid (one record, key QUEUE_KEY) */
export const QueueRecordSchema = v.object({
  items: v.array(QueueItemSchema),
  held: v.boolean(),
  nextId: v.pipe(v.number(), v.integer(), v.minValue(1)),
  savedAt: finite,
});

export type RunRecord = v.InferOutput<typeof RunSchema>;
export type LessonTag = v.InferOutput<typeof LessonTagSchema>;
export type QueueRecord = v.InferOutput<typeof QueueRecordSchema>;
export type MetricPoint = v.InferOutput<typeof MetricPointSchema>;
export type WeightSpec = v.InferOutput<typeof WeightSpecSchema>;
export type CheckpointRecord = v.InferOutput<typeof CheckpointSchema>;
export type EpisodeRecord = v.InferOutput<typeof EpisodeSchema>;

/** Validates one record; returns the reason it is invalid, in words, when it is. */
export function checkRecord<T>(
  schema: v.GenericSchema<unknown, T>,
  value: unknown,
): { ok: true; value: T } | { ok: false; reason: string } {
  const result = v.safeParse(schema, value);
  if (result.success) return { ok: true, value: result.output };
  const issue = result.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
  return { ok: false, reason: path ? `${path}: ${issue.message}` : issue.message };
}
