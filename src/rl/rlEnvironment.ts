// What an RL run trains and is judged on: the SFT checkpoint's world (its card names the size and seed),
// the RL training queries (the study's data axes: how many, and the easy:medium:hard mix), and the
// checkpoint's own validation split and unseen tool-QA tasks, so step 0 of every run re-measures the
// SFT start on exactly the tasks its card reports.
import type { Query, World, WorldSize } from '../env/types.ts';
import type { ToolQaTask } from '../env/toolqa.ts';
import { generateWorld } from '../env/world.ts';
import { buildDataset } from '../env/queries.ts';
import { buildSftData, heldOutToolQa } from '../agent/sftData.ts';

export interface RlEnvironment {
  world: World;
  /** RL training queries */
  train: Query[];
  /** the checkpoint's validation split (in-domain evaluation) */
  validation: Query[];
  /** tool-QA tasks absent from the SFT data (the OOD suite, DESIGN §3.5) */
  heldOutQa: ToolQaTask[];
}

/** the parts of an SFT card that fix the world and the evaluation tasks */
export interface SftOrigin {
  world: { size: WorldSize; seed: number };
  data: { trainQueries: number; validationQueries: number; testQueries: number; toolQa: number; mix: readonly [number, number, number] };
  contextLength: number;
}

export interface RlDataOptions {
  /** RL training queries (the paper sweeps 100 … 2K) */
  trainSize: number;
  /** easy : medium : hard proportions (paper default 4:3:3) */
  mix: readonly [number, number, number];
}

export function rlEnvironment(origin: SftOrigin, data: RlDataOptions): RlEnvironment {
  const seed = origin.world.seed;
  const world = generateWorld(origin.world.size, seed);
  // the SFT run's dataset, rebuilt exactly (its validation split; its tool-QA tasks, to exclude from OOD)
  const sft = buildDataset(world, { size: origin.data.trainQueries, mix: origin.data.mix, seed, validationSize: origin.data.validationQueries, testSize: origin.data.testQueries });
  const sftData = buildSftData(world, sft.train, { seed: seed + 1, toolQa: origin.data.toolQa, maxLength: origin.contextLength });
  const heldOutQa = heldOutToolQa(world, sftData, seed + 2, Math.max(10, Math.round(origin.data.toolQa / 4)));
  // RL queries: the same generator and held-out splits, so none is a validation or test query
  const rl = buildDataset(world, { size: data.trainSize, mix: data.mix, seed, validationSize: origin.data.validationQueries, testSize: origin.data.testQueries });
  return { world, train: rl.train, validation: sft.validation, heldOutQa };
}
