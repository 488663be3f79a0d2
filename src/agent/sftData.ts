// SFT data: the teacher's successful trajectories on the training queries plus
// its tool-QA episodes, as {tokens, lossMask} sequences for the SFT trainer.
import type { Query, World } from '../env/types.ts';
import { Rng } from '../env/random.ts';
import { teachTrajectory } from '../env/teacher.ts';
import { generateToolQa, teachToolQa, toolQaKey, type ToolQaTask } from '../env/toolqa.ts';
import { encodeTrajectory, type EncodedEpisode } from './encode.ts';
import { encodeToolQaEpisode } from './toolqaCodec.ts';

export interface SftDataOptions {
  seed: number;
  /** teacher tool failures (the teacher's `failureRate`); 0 = the paper's stable sandbox */
  failureRate?: number;
  /** tool-QA episodes to add (the OOD skill the SFT model learns); default 0 */
  toolQa?: number;
  /** drop sequences longer than this (the model's context) */
  maxLength?: number;
}

export interface SftData {
  examples: EncodedEpisode[];
  travel: number;
  toolQa: number;
  /** queries the teacher could not solve or whose episode did not fit maxLength */
  skipped: number;
  /** tool-QA tasks used for training (evaluate on others) */
  toolQaTasks: ToolQaTask[];
}

export function buildSftData(world: World, queries: readonly Query[], opts: SftDataOptions): SftData {
  const rng = new Rng(opts.seed);
  const failureRate = opts.failureRate ?? 0;
  const maxLength = opts.maxLength ?? Infinity;
  const examples: EncodedEpisode[] = [];
  let skipped = 0;
  for (const q of queries) {
    const traj = teachTrajectory(world, q, { rng: rng.fork(examples.length + skipped), failureRate });
    const enc = traj ? encodeTrajectory(traj) : null;
    if (enc && enc.tokens.length <= maxLength) examples.push(enc);
    else skipped++;
  }
  const travel = examples.length;
  const toolQaTasks = opts.toolQa ? generateToolQa(world, rng.fork(0x70a), opts.toolQa) : [];
  for (const task of toolQaTasks) {
    const ep = teachToolQa(world, task, rng, { failureRate });
    if (ep) examples.push(encodeToolQaEpisode(ep));
  }
  return { examples, travel, toolQa: examples.length - travel, skipped, toolQaTasks };
}

/** `n` tool-QA tasks none of which is among the SFT data's: the OOD suite scores unseen questions. */
export function heldOutToolQa(world: World, data: SftData, seed: number, n: number): ToolQaTask[] {
  return generateToolQa(world, new Rng(seed), n, new Set(data.toolQaTasks.map((t) => toolQaKey(t.question))));
}
