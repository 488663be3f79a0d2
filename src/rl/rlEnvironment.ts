// What an RL run trains and is judged on: the SFT checkpoint's world (its card names the size and seed),
// the RL training queries (the study's data axes: how many, and the easy:medium:hard mix), and the
// checkpoint's own validation split and unseen tool-QA tasks, so step 0 of every run re-measures the
// SFT start on exactly the tasks its card reports.
//
// The held-out splits are grown to GROWN_HELD_OUT queries each (queries.ts grownHeldOut: the card's
// own queries first, then more drawn after the SFT training split), so an evaluation can resolve
// ±5 points; the SFT training split, and so the checkpoint, is unchanged. RL training queries skip
// every validation and test query of the grown splits.
import type { Query, World, WorldSize } from '../env/types.ts';
import type { ToolQaTask } from '../env/toolqa.ts';
import { generateWorld } from '../env/world.ts';
import { buildDataset, grownHeldOut, queryKey, type Dataset } from '../env/queries.ts';
import { buildSftData, heldOutToolQa } from '../agent/sftData.ts';

export interface RlEnvironment {
  world: World;
  /** RL training queries */
  train: Query[];
  /** the checkpoint's validation split grown to GROWN_HELD_OUT (in-domain evaluation; its first
   *  data.validationQueries are the ones the card was scored on) */
  validation: Query[];
  /** tool-QA tasks absent from the SFT data (the OOD suite), grown to GROWN_OOD */
  heldOutQa: ToolQaTask[];
}

/** the parts of an SFT card that fix the world and the evaluation tasks */
export interface SftOrigin {
  world: { size: WorldSize; seed: number };
  data: {
    trainQueries: number;
    validationQueries: number;
    testQueries: number;
    toolQa: number;
    mix: readonly [number, number, number];
  };
  contextLength: number;
}

export interface RlDataOptions {
  /** RL training queries (the paper sweeps 100 … 2K) */
  trainSize: number;
  /** easy : medium : hard proportions (paper default 4:3:3) */
  mix: readonly [number, number, number];
}

/** The SFT run's dataset rebuilt exactly (its training split is the checkpoint's), with its validation and
 *  test splits grown to GROWN_HELD_OUT each. */
export function originDataset(world: World, origin: SftOrigin): Dataset {
  const { trainQueries, mix, validationQueries, testQueries } = origin.data;
  return buildDataset(world, {
    size: trainQueries,
    mix,
    seed: origin.world.seed,
    validationSize: validationQueries,
    testSize: testQueries,
    ...grownHeldOut(validationQueries, testQueries),
  });
}

/** the unseen tool-QA suite grown to this many tasks (the card's own first, as the same generator draws them on),
 *  so an RL evaluation can use ≥ 100 OOD tasks while the card's figures stay those of its first tasks */
export const GROWN_OOD = 100;

/** the unseen tool-QA tasks an SFT card was scored on (the first ones of the grown suite) */
export function cardToolQa(origin: SftOrigin): number {
  return Math.max(10, Math.round(origin.data.toolQa / 4));
}

export type EvaluationTasks = { world: World; sft: Dataset; heldOutQa: ToolQaTask[] };
// Building an origin's tasks takes seconds (its 1,000 SFT queries and grown held-out splits, each checked
// by the teacher); a process that starts several runs from one checkpoint (a sweep with --jobs 1, a worker
// running a queue, the tests) builds them once. Every caller gets its own deep copy (milliseconds), so
// nothing one run does to its world or queries reaches another. The newest few origins are kept.
const tasksByOrigin = new Map<string, EvaluationTasks>();
const ORIGINS_KEPT = 2;

/** Built tasks kept beyond one process (src/node/evaluationTaskStore.ts: a folder the test suite's processes share,
 *  since each CLI process and test file would otherwise build the same tasks again). Only for one version of the
 *  code: the tasks are not checked against the generators that made them. */
export interface EvaluationTaskStore {
  load(key: string): EvaluationTasks | undefined;
  save(key: string, tasks: EvaluationTasks): void;
}
let taskStore: EvaluationTaskStore | null = null;

/** keeps built tasks in `store` too, and looks there before building (null: this process only) */
export function useEvaluationTaskStore(store: EvaluationTaskStore | null): void {
  taskStore = store;
}

/** What any policy from this origin is evaluated on: the world, the grown held-out splits and the grown unseen tool-QA
 * suite. */
export function originEvaluationTasks(origin: SftOrigin): EvaluationTasks {
  const key = JSON.stringify([origin.world, origin.data, origin.contextLength]);
  let tasks = tasksByOrigin.get(key);
  if (!tasks) {
    tasks = taskStore?.load(key);
    if (!tasks) {
      tasks = buildEvaluationTasks(origin);
      taskStore?.save(key, tasks);
    }
    tasksByOrigin.set(key, tasks);
    for (const old of tasksByOrigin.keys()) if (tasksByOrigin.size > ORIGINS_KEPT) tasksByOrigin.delete(old);
  }
  return structuredClone(tasks);
}

function buildEvaluationTasks(origin: SftOrigin): EvaluationTasks {
  const seed = origin.world.seed;
  const world = generateWorld(origin.world.size, seed);
  // the SFT run's dataset (its validation split; its tool-QA tasks, to exclude from OOD)
  const sft = originDataset(world, origin);
  const sftData = buildSftData(world, sft.train, {
    seed: seed + 1,
    toolQa: origin.data.toolQa,
    maxLength: origin.contextLength,
  });
  const heldOutQa = heldOutToolQa(world, sftData, seed + 2, Math.max(GROWN_OOD, cardToolQa(origin)));
  return { world, sft, heldOutQa };
}

export function rlEnvironment(origin: SftOrigin, data: RlDataOptions): RlEnvironment {
  const { world, sft, heldOutQa } = originEvaluationTasks(origin);
  // RL queries: the same generator and held-out splits, skipping the grown splits' queries, so none
  // is a validation or test query (at the SFT run's own size and mix they are its training queries)
  const exclude = [...sft.validation, ...sft.test].map(queryKey);
  const rl = buildDataset(world, {
    size: data.trainSize,
    mix: data.mix,
    seed: origin.world.seed,
    validationSize: origin.data.validationQueries,
    testSize: origin.data.testQueries,
    exclude,
  });
  return { world, train: rl.train, validation: sft.validation, heldOutQa };
}
