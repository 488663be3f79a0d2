// The episode the welcome view replays: one greedy rollout of a shipped checkpoint on one validation query,
// shaped as the page shows episodes (sampleEpisode.ts). Greedy decoding on wasm is deterministic, so the
// recording committed beside the welcome (scripts/record-welcome-episode.ts) is what the checkpoint does,
// and a test reruns it to prove so.
import { rollout } from '../agent/rollout.ts';
import { Rng } from '../env/random.ts';
import type { Query, World } from '../env/types.ts';
import type { Policy } from '../model/transformer.ts';
import { sampleEpisode, type SampleEpisode } from './sampleEpisode.ts';

export interface WelcomeEpisodeRecord {
  format: 'star-lab-welcome-episode/1';
  /** the shipped checkpoint that played it (public/checkpoints/<name>) and its weights' SHA-256 */
  checkpoint: string;
  weightsSha256: string;
  /** the query's index in the checkpoint's validation split */
  validationIndex: number;
  /** plan decoding as the lab's RL stage uses it by default */
  constrainPlan: boolean;
  /** how it was recorded */
  command: string;
  episode: SampleEpisode;
}

/** One greedy rollout of `query` alone (a batch of one, no injected failures), as the page shows it. */
export async function playWelcomeEpisode(
  policy: Policy,
  world: World,
  query: Query,
  constrainPlan: boolean,
): Promise<SampleEpisode> {
  const [e] = await rollout(policy, [{ kind: 'travel', query }], {
    world,
    greedy: true,
    failureRate: 0,
    constrainPlan,
    rng: new Rng(0),
  });
  return sampleEpisode(world, e);
}
