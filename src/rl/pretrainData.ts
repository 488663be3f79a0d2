// Pretraining data: teacher trajectories and tool-QA of an unlimited stream of generated
// worlds that are NOT the world the lab evaluates on, so a larger preset can get more experience than
// the tiny world's 1,000 trajectories hold. Each world is built exactly as the SFT pipeline builds its
// own (generateWorld → buildDataset → buildSftData), so the sequences speak the same token language:
// the vocabulary (agent/vocab.ts) is fixed for every world (all 312 TravelPlanner cities and 64 states
// have tokens whether a world uses them or not), so pretrained weights carry over to the tiny world.
//
// The stream is cut into groups of GROUP_WORLDS worlds; a group's examples are ordered (and cut into
// batches) by a pure function of (run seed, group), so a run's batches are a function of its seed and
// a resumed run only needs its cursor (group, batch) to continue exactly.
import type { WorldSize } from '../env/types.ts';
import { generateWorld } from '../env/world.ts';
import { buildDataset } from '../env/queries.ts';
import { buildSftData } from '../agent/sftData.ts';
import { sftEpochOrder, type SftExample } from './sft.ts';

/** the worlds the lab evaluates (and SFTs) on: the pretraining stream must never produce one of them */
export const EVALUATION_WORLDS: readonly { size: WorldSize; seed: number }[] = [{ size: 'tiny', seed: 1 }];

/** world sizes the stream alternates ("small…standard"; never `tiny`, the evaluation size) */
export const PRETRAIN_SIZES: readonly WorldSize[] = ['small', 'standard'];

/** world seeds start here (far from the 1–100 the lab's runs use), one block of a million per run seed */
export const PRETRAIN_SEED_BASE = 1_000_000;

/** worlds per group: a batch mixes up to this many worlds (one world per batch would make each step's
 *  gradient about one database) */
export const GROUP_WORLDS = 4;

/** Default token budget per parameter: Chinchilla's compute-optimal ~20 tokens per parameter (Hoffmann
 *  et al. 2022). The tiny-world SFT alone feeds 3.0M tokens: ≈ 11 per parameter for s, 5 for m, 2.4 for l,
 *  so the larger presets are the under-fed ones; tokens ∝ parameters gives each the same data per weight. */
export const TOKENS_PER_PARAMETER = 20;

export interface PretrainDataOptions {
  /** run seed: picks the world seeds and the data order */
  seed: number;
  /** travel queries the teacher solves per world (4:3:3 easy:medium:hard, as the tiny-world SFT) */
  worldQueries: number;
  /** tool-QA episodes per world (the SFT's 1,000 : 250 = 4 : 1 ratio at the defaults) */
  worldToolQa: number;
  /** drop sequences longer than the model's context */
  contextLength: number;
  /** sequences per batch */
  batchSize: number;
}

/** the k-th world of a run's stream (k ≥ 0) */
export function pretrainWorld(seed: number, k: number): { size: WorldSize; seed: number } {
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`pretrain: the run seed must be a non-negative integer, got ${seed}`);
  const w = { size: PRETRAIN_SIZES[k % PRETRAIN_SIZES.length], seed: PRETRAIN_SEED_BASE * (seed + 1) + k };
  assertNotEvaluationWorld(w);
  return w;
}

/** throws if `w` is a world the lab evaluates on (a guard: the stream's sizes and seeds already exclude it) */
export function assertNotEvaluationWorld(w: { size: WorldSize; seed: number }): void {
  if (EVALUATION_WORLDS.some((e) => e.size === w.size && e.seed === w.seed)) {
    throw new Error(`pretrain: world ${w.size}/${w.seed} is an evaluation world; pretraining must never see it`);
  }
}

export interface PretrainGroup {
  /** the group's batches, in training order (the remainder of fewer than batchSize sequences is dropped) */
  batches: SftExample[][];
  /** every sequence of the group (for the trainer's validation) */
  examples: SftExample[];
  worlds: { size: WorldSize; seed: number }[];
}

/** group `g` of the run's stream: GROUP_WORLDS worlds' teacher trajectories and tool-QA, length-grouped batches */
export function pretrainGroup(o: PretrainDataOptions, g: number): PretrainGroup {
  const worlds = Array.from({ length: GROUP_WORLDS }, (_, i) => pretrainWorld(o.seed, g * GROUP_WORLDS + i));
  const examples: SftExample[] = [];
  for (const w of worlds) {
    const world = generateWorld(w.size, w.seed);
    const ds = buildDataset(world, {
      size: o.worldQueries,
      mix: [4, 3, 3],
      seed: w.seed,
      validationSize: 0,
      testSize: 0,
    });
    const data = buildSftData(world, ds.train, { seed: w.seed + 1, toolQa: o.worldToolQa, maxLength: o.contextLength });
    examples.push(...data.examples);
  }
  if (examples.length < o.batchSize) {
    throw new Error(
      `pretrain: group ${g} has ${examples.length} sequences, fewer than a batch of ${o.batchSize}; raise --world-queries`,
    );
  }
  // similar lengths share a batch (less padding); epoch 0 of a per-group seed starts on a batch boundary
  const order = sftEpochOrder(examples.map((e) => e.tokens.length), o.batchSize, 8, o.seed * 100_003 + g, 0);
  const batches: SftExample[][] = [];
  for (let i = 0; i + o.batchSize <= order.length; i += o.batchSize)
    batches.push(order.slice(i, i + o.batchSize).map((j) => examples[j]));
  return { batches, examples, worlds };
}

/** real (unpadded) tokens of a batch: what a token budget counts */
export function batchTokens(batch: readonly SftExample[]): number {
  return batch.reduce((n, e) => n + e.tokens.length, 0);
}
